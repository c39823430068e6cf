//! Integer code under emulation: `integer.c`'s three kernels (a
//! multiplicative hash over bytes, a byte histogram, a 64-bit xorshift)
//! profiled per function. Each function's W is exact against the ops its
//! disassembly holds, read by the test's own reading of the definition
//! (docs/profile.md), its compares counted beside, and it is placed under
//! the integer ALU roofs.

use super::*;
use carmbench::kernels::Precision;

const INTEGER: &str = include_str!("../programs/integer.c");

/// One instruction of `objdump -d -M intel`: address, mnemonic, operands.
pub(crate) struct Line {
    pub addr: u64,
    pub mnemonic: String,
    pub operands: String,
}

/// The instructions of `function` in `exe`.
pub(crate) fn disassembly(exe: &Path, function: &str) -> Vec<Line> {
    let out = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-M", "intel"])
        .arg(exe)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let head = format!("<{function}>:");
    let body = text.split(&head).nth(1).expect("the function");
    let body = body.split("\n\n").next().unwrap();
    body.lines()
        .filter_map(|l| {
            let (addr, rest) = l.trim().split_once(":\t")?;
            let (m, ops) = rest
                .trim()
                .split_once(char::is_whitespace)
                .unwrap_or((rest.trim(), ""));
            Some(Line {
                addr: u64::from_str_radix(addr, 16).ok()?,
                mnemonic: m.to_string(),
                operands: ops.trim().to_string(),
            })
        })
        .collect()
}

/// (ops, compares) of one instruction by the definition: ALU instructions
/// of the general registers one op each, but zeroing idioms and the stack
/// pointer's updates; cmp and test one compare.
fn classify(l: &Line) -> (u64, u64) {
    const OPS: [&str; 15] = [
        "add", "sub", "xor", "and", "or", "imul", "inc", "dec", "shl", "shr", "sar", "rol", "ror",
        "neg", "not",
    ];
    let ops: Vec<&str> = l.operands.split(',').map(str::trim).collect();
    if matches!(l.mnemonic.as_str(), "cmp" | "test") {
        return (0, 1);
    }
    let idiom = matches!(l.mnemonic.as_str(), "xor" | "sub") && ops.len() == 2 && ops[0] == ops[1];
    let stack = ops.first().is_some_and(|o| *o == "rsp");
    (
        (OPS.contains(&l.mnemonic.as_str()) && !idiom && !stack) as u64,
        0,
    )
}

/// A function's (ops, compares) when its one loop runs `trips` times: the
/// loop is from a backward branch's target to the branch; the rest runs
/// once (up to the first `ret`).
fn by_disassembly(exe: &Path, function: &str, trips: u64) -> (u64, u64) {
    let code = disassembly(exe, function);
    let end = code.iter().position(|l| l.mnemonic == "ret").unwrap();
    let code = &code[..=end];
    let back = code
        .iter()
        .position(|l| {
            l.mnemonic.starts_with('j')
                && u64::from_str_radix(l.operands.split_whitespace().next().unwrap_or(""), 16)
                    .is_ok_and(|t| t <= l.addr)
        })
        .expect("a loop");
    let target =
        u64::from_str_radix(code[back].operands.split_whitespace().next().unwrap(), 16).unwrap();
    let (mut ops, mut cmps) = (0, 0);
    for l in code {
        let n = if (target..=code[back].addr).contains(&l.addr) {
            trips
        } else {
            1
        };
        let (o, c) = classify(l);
        ops += o * n;
        cmps += c * n;
    }
    (ops, cmps)
}

pub fn integer_kernels_are_counted_exactly_and_placed_under_the_integer_roofs() {
    let dir = tmpdir("integer");
    let exe = gcc(&dir, "integer", INTEGER, &["-O2", "-g"]);
    // Roofs to place them under: the integer ALU roofs and L1's.
    let o = carmbench_in(
        &[
            "run",
            "--quick",
            "--isa",
            "avx2",
            "--precision",
            "int",
            "--levels",
            "L1",
            "--mixes",
            "load",
            "--threads",
            "1",
            "-o",
            "roofs",
        ],
        &dir,
    );
    success(&o);
    let (n, r) = (4_000_000u64, 12u64);
    let (ns, rs) = (n.to_string(), r.to_string());
    let o = emulated_profile(
        &dir,
        "apps.yaml",
        &["--functions", "--results", "roofs/carm.yaml"],
        &[exe.to_str().unwrap(), &ns, &rs],
    )
    .output()
    .unwrap();
    let stdout = success(&o);
    let points = apps::load(&dir.join("apps.yaml")).unwrap().applications;
    for (function, bytes_each) in [("hash", 1), ("histogram", 9), ("xorshift", 0)] {
        let p = points
            .iter()
            .find(|p| p.name == function)
            .unwrap_or_else(|| panic!("no point of {function}: {stdout}"));
        let (ops, compares) = by_disassembly(&exe, function, n);
        assert_eq!(p.flops, (ops * r) as f64, "{function}: W in ops");
        let mix = p.mix.as_ref().unwrap();
        assert_eq!(
            mix.int_compares,
            (compares * r) as f64,
            "{function}: compares"
        );
        // Each call's `ret` reads its 8-byte return address.
        assert_eq!(
            p.bytes,
            (bytes_each * n * r + 8 * r) as f64,
            "{function}: Q"
        );
        assert_eq!(
            p.precision,
            Some(Precision::Int),
            "{function}: integer ALU work"
        );
        assert_eq!(mix.dp_flops + mix.sp_flops, 0.0);
        // Its line names the integer roof it sits under, or L1's.
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!(" {function} (integer")))
            .unwrap_or_else(|| panic!("{function} in the table: {stdout}"));
        assert!(
            line.contains(" int ")
                && (line.contains("int scalar peak") || line.contains("L1 load roof")),
            "{line}"
        );
    }
    // By hand, as integer.c says: 3, 2 and 7 ops an element, compares 1, 1, 0.
    assert_eq!(by_disassembly(&exe, "hash", 10), (30, 10));
    assert_eq!(by_disassembly(&exe, "histogram", 10).1, 10);
    assert_eq!(by_disassembly(&exe, "xorshift", 10), (70, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}
