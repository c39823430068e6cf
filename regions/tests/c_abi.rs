//! The C header compiles and links against the library, and a C program's
//! regions reach the output file.

use carmbench_regions::Record;
use std::path::{Path, PathBuf};
use std::process::Command;

const C_PROGRAM: &str = r#"
#include <stdio.h>
#include "carmbench.h"
int main(void) {
    double a = 1.0;
    for (int r = 0; r < 3; r++) {
        carmbench_region_begin("triad \"loop\"");
        for (int i = 0; i < 1000000; i++) a = a * 1.0000001 + 1e-9;
        carmbench_region_end("triad \"loop\"");
    }
    carmbench_region_begin("tail");
    carmbench_region_end("tail");
    carmbench_region_end("never begun");
    printf("%f\n", a);
    return 0;
}
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Build the static library in a target directory of its own, so this does
/// not wait on the build lock of the `cargo test` running it.
fn static_lib() -> PathBuf {
    let target = root().join("target").join("c-abi");
    let st = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "carmbench-regions", "--offline"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(root())
        .status()
        .expect("cargo runs");
    assert!(st.success(), "the regions library builds");
    target.join("release").join("libcarmbench_regions.a")
}

#[test]
fn c_program_links_and_writes_its_regions() {
    let lib = static_lib();
    assert!(lib.exists(), "{}", lib.display());
    let dir = std::env::temp_dir().join(format!("carmbench-cabi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("prog.c");
    std::fs::write(&src, C_PROGRAM).unwrap();
    let exe = dir.join("prog");
    let out = Command::new("gcc")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(root().join("include"))
        .arg(&src)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("gcc runs");
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Outside the profiler: no file, same result.
    let plain = Command::new(&exe)
        .env_remove("CARMBENCH_REGIONS_OUT")
        .output()
        .unwrap();
    assert!(plain.status.success());
    // Under the profiler's protocol: one line per region, summed over calls.
    let regions = dir.join("regions.jsonl");
    let run = Command::new(&exe)
        .env("CARMBENCH_REGIONS_OUT", &regions)
        .env("CARMBENCH_REGIONS_EVENTS", "")
        .output()
        .unwrap();
    assert!(run.status.success());
    let text = std::fs::read_to_string(&regions).unwrap();
    // Read back with the type `carmbench profile` reads them with.
    let records: Vec<Record> = text
        .lines()
        .map(|l| Record::parse_line(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2, "{text}");
    let triad = records.iter().find(|r| r.name == "triad \"loop\"").unwrap();
    assert_eq!(triad.calls, 3);
    assert!(triad.seconds > 0.0);
    let tail = records.iter().find(|r| r.name == "tail").unwrap();
    assert_eq!(tail.calls, 1);
    assert!(tail.seconds < triad.seconds);
    std::fs::remove_dir_all(&dir).unwrap();
}
