//! The command's standard input, given alike to its native and its emulated
//! run: a file is opened again at the same place for each; a pipe is
//! copied as the native run reads it, and the copy given to the emulated
//! run; a terminal cannot be read twice (the emulated run reads nothing,
//! and the point says so).

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

/// What carmbench's standard input is.
#[derive(Debug)]
pub enum Input {
    /// None to give (closed, `/dev/null`).
    Nothing,
    /// A file or a device: each run opens it again, at this offset.
    File(u64),
    /// A pipe or a socket: copied here as the first run reads it.
    Stream(Copy),
    /// A terminal: the first run reads it, the second nothing.
    Terminal,
}

/// Where a stream is copied to, while the first run reads it.
#[derive(Debug)]
pub struct Copy {
    /// The copy.
    path: PathBuf,
    /// Open while the copy goes on; `None` once the first run ended.
    file: Arc<Mutex<Option<File>>>,
}

impl Input {
    /// This process's standard input; a stream is copied into `scratch`.
    pub fn of_stdin(scratch: &std::path::Path) -> Result<Input> {
        let stdin = std::io::stdin();
        let fd = stdin.as_fd();
        // SAFETY: isatty on a descriptor this process holds.
        if unsafe { libc::isatty(fd.as_raw_fd()) } == 1 {
            return Ok(Input::Terminal);
        }
        // Closed (`<&-`) or unreadable: nothing to give.
        let Ok(meta) = fd
            .try_clone_to_owned()
            .map(File::from)
            .and_then(|f| f.metadata())
        else {
            return Ok(Input::Nothing);
        };
        let t = meta.file_type();
        if t.is_fifo() || t.is_socket() {
            let path = scratch.join("stdin");
            let file = File::create(&path).map_err(io)?;
            return Ok(Input::Stream(Copy {
                path,
                file: Arc::new(Mutex::new(Some(file))),
            }));
        }
        if t.is_char_device()
            && std::fs::canonicalize("/proc/self/fd/0").ok() == Some("/dev/null".into())
        {
            return Ok(Input::Nothing);
        }
        // SAFETY: lseek on a descriptor this process holds.
        let at = unsafe { libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_CUR) };
        Ok(Input::File(at.max(0) as u64))
    }

    /// The first run's input (a stream's copy is made as it reads).
    pub fn first(&self) -> Result<Stdio> {
        match self {
            Input::Nothing => Ok(Stdio::null()),
            Input::File(at) => reopen(*at),
            Input::Terminal => Ok(Stdio::inherit()),
            Input::Stream(c) => c.start(),
        }
    }

    /// The second run's input: the same as the first's, or nothing (and
    /// why) for a terminal.
    pub fn second(&self) -> Result<(Stdio, Option<&'static str>)> {
        match self {
            Input::Nothing => Ok((Stdio::null(), None)),
            Input::File(at) => Ok((reopen(*at)?, None)),
            Input::Terminal => Ok((Stdio::null(), Some("a terminal"))),
            Input::Stream(c) => {
                // The copy ends where the first run stopped reading.
                c.file.lock().map(|mut f| f.take()).ok();
                let f = File::open(&c.path).map_err(io)?;
                Ok((f.into(), None))
            }
        }
    }
}

impl Copy {
    /// A pipe for the first run, fed by a thread that copies what it reads
    /// from carmbench's input into the file too.
    fn start(&self) -> Result<Stdio> {
        let (reader, mut writer) = std::io::pipe().map_err(io)?;
        let file = Arc::clone(&self.file);
        std::thread::spawn(move || {
            let mut input = std::io::stdin().lock();
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n @ 1..) = input.read(&mut buf) {
                let Ok(mut f) = file.lock() else { return };
                // The first run has ended: what is read now is nobody's.
                let Some(f) = f.as_mut() else { return };
                if f.write_all(&buf[..n]).is_err() || writer.write_all(&buf[..n]).is_err() {
                    return;
                }
            }
        });
        Ok(reader.into())
    }
}

/// This process's input file opened again, at `at`.
fn reopen(at: u64) -> Result<Stdio> {
    let mut f = File::open("/proc/self/fd/0").map_err(io)?;
    if at > 0 {
        // A device that cannot seek is read from where it gives.
        let _ = f.seek(SeekFrom::Start(at));
    }
    Ok(f.into())
}

fn io(e: std::io::Error) -> Error {
    Error::Io(format!("cannot give the command its standard input: {e}"))
}
