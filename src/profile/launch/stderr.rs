//! QEMU's standard error in an emulated run: read as it comes (a process
//! the command leaves holding it must not keep carmbench waiting), and
//! what it says when a run gave no counts or lost some: an instruction QEMU
//! cannot emulate, a plugin QEMU refused, a program that failed, counts
//! that could not be written (a full disk, a file size limit).

use crate::error::Error;
use std::path::Path;
use std::process::{Command, Stdio};

/// Run `cmd` with its standard error read as it comes, by a thread: what
/// `run` returned and the text. A process the command left holding it (a
/// daemon) does not keep carmbench waiting past a second after `run`.
pub(super) fn with_stderr<T>(mut cmd: Command, run: impl FnOnce(&mut Command) -> T) -> (T, String) {
    let Ok((mut reader, writer)) = std::io::pipe() else {
        cmd.stderr(Stdio::null());
        return (run(&mut cmd), String::new());
    };
    cmd.stderr(writer);
    let text = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (done, finished) = std::sync::mpsc::channel();
    let into = std::sync::Arc::clone(&text);
    std::thread::spawn(move || {
        use std::io::Read;
        let mut buf = [0u8; 8192];
        while let Ok(n @ 1..) = reader.read(&mut buf) {
            if let Ok(mut t) = into.lock() {
                t.extend_from_slice(&buf[..n]);
            }
        }
        let _ = done.send(());
    });
    let out = run(&mut cmd);
    // The copy of the pipe's end the command held: closed, so the text ends
    // when the processes' copies close.
    drop(cmd);
    let _ = finished.recv_timeout(std::time::Duration::from_secs(1));
    let text = text.lock().map(|t| t.clone()).unwrap_or_default();
    (out, String::from_utf8_lossy(&text).into_owned())
}

/// An error when the plugin could not write some processes' counts (a
/// full disk, a file size limit): W would be short by their work. Said by
/// the plugin on standard error, or, when counts are `short` and the
/// program closed its standard error, found from the folder and the limit.
pub(super) fn unwritten(stderr: &str, dir: &Path, short: bool) -> Option<Error> {
    let why: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.split_once(carmbench_counts::protocol::WRITE_FAILED))
        .filter_map(|(_, rest)| rest.rsplit_once(": ").map(|(_, e)| e.trim()))
        .collect();
    let folder = dir.parent().unwrap_or(dir);
    let cause = match why.first() {
        Some(first) => format!(
            "the counts of {} process(es) could not be written: {first}",
            why.len()
        ),
        None if short => no_room(folder)?,
        None => return None,
    };
    Some(Error::Io(format!(
        "{cause}; no point written (free space in {}, raise the file size limit (ulimit -f), or point TMPDIR at a folder with room)",
        folder.display()
    )))
}

/// Why files cannot be written in `dir`, when that is so: a file size
/// limit, or less than a few MiB free.
fn no_room(dir: &Path) -> Option<String> {
    const ROOM: u64 = 8 << 20;
    // SAFETY: plain queries into structures owned here.
    let (limit, free) = unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        let limit = (libc::getrlimit(libc::RLIMIT_FSIZE, &mut l) == 0 && l.rlim_cur < 1 << 30)
            .then_some(l.rlim_cur);
        let mut s: libc::statvfs = std::mem::zeroed();
        let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
        let free = (libc::statvfs(c.as_ptr(), &mut s) == 0).then(|| s.f_bavail * s.f_frsize);
        (limit, free)
    };
    match (limit, free) {
        (Some(l), _) => Some(format!(
            "counts were lost: files may not grow past {} here (File too large)",
            crate::units::human_bytes(l)
        )),
        (_, Some(f)) if f < ROOM => Some(format!(
            "counts were lost: {} has {} free (No space left on device)",
            dir.display(),
            crate::units::human_bytes(f)
        )),
        _ => None,
    }
}

/// Why an emulated run gave no counts: the program stopped on an
/// instruction QEMU cannot emulate, QEMU refused the plugin, or the program
/// failed under emulation.
pub(super) fn emulation_failure(
    program: &str,
    status: &std::process::ExitStatus,
    stderr: &str,
    counted: bool,
    withheld: &[&str],
) -> Option<Error> {
    use std::os::unix::process::ExitStatusExt;
    let sigill = status.signal() == Some(libc::SIGILL) || stderr.contains("Illegal instruction");
    // Features hidden on request are the likelier cause: QEMU emulates them.
    if sigill && !withheld.is_empty() {
        return Some(Error::input(format!(
            "'{program}' stopped on an instruction the emulated CPU lacks (SIGILL): --emulate-without hid {} from it, and it uses them without asking the CPU first; hide fewer features, or count a twin build of the same code without them with --count-with PROGRAM",
            withheld.join(", ")
        )));
    }
    if sigill {
        return Some(Error::input(format!(
            "'{program}' stopped on an instruction QEMU cannot emulate (SIGILL; QEMU emulates x86-64 up to AVX2, not AVX-512): count a twin build of the same code with --count-with PROGRAM (e.g. built with -march=x86-64-v3), count on a machine with a PMU (--counts pmu), or give the counts (--flops N --bytes M)"
        )));
    }
    if !counted && stderr.contains("plugin") {
        return Some(Error::input(format!(
            "QEMU did not load the counting plugin ({}); the plugin speaks QEMU's plugin API version 1 (QEMU 7.2): use that QEMU, or count with --counts pmu or --flops/--bytes",
            one_line(stderr)
        )));
    }
    if !status.success() {
        return Some(Error::input(format!(
            "'{program}' failed under emulation ({status}) though it ran natively; no point written ({})",
            one_line(stderr)
        )));
    }
    None
}

/// A program's error text on one line.
pub(super) fn one_line(s: &str) -> String {
    let t: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if t.is_empty() {
        "nothing on standard error".into()
    } else {
        t.join(" / ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_under_emulation_are_told_apart() {
        use std::os::unix::process::ExitStatusExt;
        let sigill = std::process::ExitStatus::from_raw(libc::SIGILL);
        let e = emulation_failure("./avx512", &sigill, "", false, &[]).unwrap();
        assert!(e.to_string().contains("SIGILL") && e.to_string().contains("x86-64-v3"));
        // Features hidden on request are named, not AVX-512.
        let e = emulation_failure("./fma", &sigill, "", false, &["avx2", "fma"]).unwrap();
        let e = e.to_string();
        assert!(
            e.contains("--emulate-without hid avx2, fma") && !e.contains("AVX-512"),
            "{e}"
        );
        let one = std::process::ExitStatus::from_raw(1 << 8);
        let e =
            emulation_failure("./p", &one, "Could not load plugin x: version", false, &[]).unwrap();
        assert!(
            e.to_string().contains("did not load the counting plugin"),
            "{e}"
        );
        let e = emulation_failure("./p", &one, "segfault", true, &[]).unwrap();
        assert!(e.to_string().contains("failed under emulation"), "{e}");
        let ok = std::process::ExitStatus::from_raw(0);
        assert!(emulation_failure("./p", &ok, "", true, &[]).is_none());
    }
}
