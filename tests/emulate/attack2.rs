//! The defects of "profile under attack, round 2" (issue 52) under a real
//! QEMU and Open MPI, by their number there.

use super::*;

const SIGSTATE: &str = include_str!("../programs/sigstate.c");

/// The lines the `sigstate` program wrote to `f`, the file then removed.
fn states(f: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(f).unwrap_or_default();
    let _ = std::fs::remove_file(f);
    text.lines().map(String::from).collect()
}

pub fn s02_emulated_runs_and_mpi_ranks_start_with_the_signal_mask_they_would_have_had() {
    let dir = tmpdir("sigmask-emu");
    let exe = gcc(&dir, "sigstate", SIGSTATE, &["-O1"]);
    let f = dir.join("state");
    let (exe_s, f_s) = (exe.to_str().unwrap(), f.to_str().unwrap());
    assert!(Command::new(&exe).arg(&f).status().unwrap().success());
    let alone = states(&f);
    assert_eq!(alone.len(), 1, "{alone:?}");
    // The native run and the emulated one.
    let out = emulated_profile(&dir, "a.yaml", &[], &[exe_s, f_s])
        .output()
        .unwrap();
    success(&out);
    assert_eq!(states(&f), [alone[0].clone(), alone[0].clone()]);
    // Each rank of an MPI job, as the launcher alone starts it.
    {
        let root = [
            ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
            ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        ];
        let launch = ["mpirun", "-np", "1", exe_s, f_s];
        let st = Command::new(launch[0])
            .args(&launch[1..])
            .envs(root)
            .status();
        assert!(st.unwrap().success());
        let launched = states(&f);
        assert_eq!(launched.len(), 1, "{launched:?}");
        let out = emulated_profile(&dir, "m.yaml", &["--mpi"], &launch)
            .envs(root)
            .output()
            .unwrap();
        success(&out);
        assert_eq!(states(&f), [launched[0].clone(), launched[0].clone()]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
