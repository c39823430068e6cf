//! Following every process a command starts: the one definition of how a
//! program is launched under QEMU with the counting plugin, shared by
//! carmbench (the first process) and by its preload library (`follow/`,
//! every exec inside the emulated guest), so that both build the same
//! command line and resolve `PATH` and `#!` scripts by the same rules.
//!
//! Under `qemu-user` a guest's `execve` starts the new program natively.
//! The preload library, given only to the guest, turns each exec into an
//! exec of QEMU with the plugin and itself; the plugin writes one counts
//! file per process into one folder ([`crate::Output`]).

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

pub use crate::protocol::{CONFIG_ENV, PROGRAM_ENV};
/// The separator of the config's fields: no path of ours holds it.
const SEP: u8 = 0x1f;
/// Nested `#!` interpreters followed, as Linux allows.
const MAX_SCRIPT_DEPTH: usize = 4;
/// What stands for a comma of the CPU model in the encoded config.
const COMMA: u8 = 0x1e;

/// What every followed process is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `qemu-x86_64`.
    pub qemu: PathBuf,
    /// The counting plugin.
    pub plugin: PathBuf,
    /// The folder the plugin writes one counts file per process into.
    pub out: PathBuf,
    /// The preload library.
    pub preload: PathBuf,
    /// QEMU's `-cpu` value: the CPU every followed program is shown (none:
    /// QEMU's own model).
    pub cpu: Option<OsString>,
}

impl Config {
    /// Why these paths cannot be handed to QEMU: its `-plugin` and `-E`
    /// options split their values at commas.
    pub fn check(&self) -> Result<(), String> {
        for (what, p) in [
            ("the QEMU binary", &self.qemu),
            ("the counting plugin", &self.plugin),
            ("the counts folder", &self.out),
            ("the preload library", &self.preload),
        ] {
            let b = p.as_os_str().as_bytes();
            if b.contains(&b',') || b.contains(&SEP) || b.is_empty() {
                return Err(format!(
                    "{what} has a path QEMU cannot take ({}): no commas",
                    p.display()
                ));
            }
        }
        if self
            .cpu
            .as_ref()
            .is_some_and(|c| c.as_bytes().iter().any(|b| *b == SEP || *b == COMMA))
        {
            return Err("the CPU model for QEMU holds a control character".into());
        }
        Ok(())
    }

    /// The config as one environment value.
    pub fn encode(&self) -> OsString {
        let mut v = Vec::new();
        for p in [&self.qemu, &self.plugin, &self.out, &self.preload] {
            v.extend_from_slice(p.as_os_str().as_bytes());
            v.push(SEP);
        }
        // The CPU last, empty for QEMU's own; its commas stand in for
        // another byte, as QEMU's `-E` splits its value at commas.
        let cpu = self.cpu.as_deref().map_or(&b""[..], OsStr::as_bytes);
        v.extend(cpu.iter().map(|&b| if b == b',' { COMMA } else { b }));
        OsString::from_vec(v)
    }

    /// The config from [`Config::encode`]'s value.
    pub fn decode(s: &OsStr) -> Option<Config> {
        let mut f = s
            .as_bytes()
            .split(|&b| b == SEP)
            .map(|b| PathBuf::from(OsStr::from_bytes(b)));
        let c = Config {
            qemu: f.next()?,
            plugin: f.next()?,
            out: f.next()?,
            preload: f.next()?,
            cpu: f.next().map(PathBuf::into_os_string).and_then(|c| {
                let b = c.into_vec();
                let b = b.iter().map(|&x| if x == COMMA { b',' } else { x });
                Some(OsString::from_vec(b.collect())).filter(|c| !c.is_empty())
            }),
        };
        f.next().is_none().then_some(c)
    }

    /// The host command (QEMU's argv) that runs `launch` under QEMU with the
    /// plugin and the preload, the guest's `argv[0]` being `argv0`.
    /// `their_preload`: the LD_PRELOAD the program would have had, kept
    /// after ours (dropped when QEMU could not take it).
    pub fn command(
        &self,
        launch: &Launch,
        argv0: &OsStr,
        rest: &[&OsStr],
        their_preload: Option<&OsStr>,
    ) -> Vec<OsString> {
        let mut preload = OsString::from("LD_PRELOAD=");
        preload.push(&self.preload);
        if let Some(t) = their_preload.filter(|t| !t.is_empty() && !t.as_bytes().contains(&b',')) {
            preload.push(":");
            preload.push(t);
        }
        let mut config = OsString::from(format!("{CONFIG_ENV}="));
        config.push(self.encode());
        let mut plugin = OsString::from("file=");
        plugin.push(&self.plugin);
        plugin.push(",out=");
        plugin.push(&self.out);
        let mut argv: Vec<OsString> = vec![self.qemu.clone().into()];
        if let Some(cpu) = &self.cpu {
            argv.extend(["-cpu".into(), cpu.clone()]);
        }
        argv.extend([
            "-plugin".into(),
            plugin,
            "-E".into(),
            preload,
            "-E".into(),
            config,
            "-U".into(),
            PROGRAM_ENV.into(),
            "-0".into(),
            // A script's interpreter sees its own path as argv[0], as the
            // kernel gives it.
            launch.argv0.clone().unwrap_or_else(|| argv0.to_owned()),
            launch.program.clone().into(),
        ]);
        argv.extend(launch.args.iter().cloned());
        argv.extend(rest.iter().map(|a| a.to_os_string()));
        argv
    }
}

/// What a file is, from its first bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// An x86-64 ELF program; `dynamic` when it has an interpreter (the
    /// dynamic loader), so that a preload library reaches it.
    Elf { dynamic: bool },
    /// An ELF file of another class or machine.
    ForeignElf,
    /// A `#!` script: its interpreter and the optional argument.
    Script {
        /// The interpreter's path.
        interpreter: PathBuf,
        /// Everything after it on the line, as one argument.
        arg: Option<OsString>,
    },
    /// Neither: a shell runs it (as `execvp` does), `execve` refuses it.
    Other,
}

/// The first bytes of a file (enough for the ELF header, its program
/// headers and a `#!` line).
pub fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut b = Vec::with_capacity(4096);
    std::fs::File::open(path)?.take(4096).read_to_end(&mut b)?;
    Ok(b)
}

/// What `head` (a file's first bytes) says the file is.
pub fn kind(head: &[u8]) -> Kind {
    if let Some(line) = head.strip_prefix(b"#!") {
        let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = line.trim_ascii();
        let (interp, arg) = match line.iter().position(|b| *b == b' ' || *b == b'\t') {
            Some(i) => (&line[..i], Some(line[i..].trim_ascii())),
            None => (line, None),
        };
        return Kind::Script {
            interpreter: PathBuf::from(OsStr::from_bytes(interp)),
            arg: arg
                .filter(|a| !a.is_empty())
                .map(|a| OsStr::from_bytes(a).to_os_string()),
        };
    }
    if !head.starts_with(b"\x7fELF") {
        return Kind::Other;
    }
    // ELFCLASS64, little-endian, EM_X86_64.
    let u16_at = |o: usize| head.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    if head.get(4) != Some(&2) || head.get(5) != Some(&1) || u16_at(18) != Some(62) {
        return Kind::ForeignElf;
    }
    let u64_at = |o: usize| {
        head.get(o..o + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
    };
    let (Some(phoff), Some(phent), Some(phnum)) = (u64_at(32), u16_at(54), u16_at(56)) else {
        return Kind::ForeignElf;
    };
    // PT_INTERP among the program headers that fit in the head; a file
    // whose headers lie further is taken as dynamic (the common case).
    let mut dynamic = false;
    let mut seen_all = true;
    for k in 0..usize::from(phnum) {
        let at = phoff as usize + k * usize::from(phent);
        match head.get(at..at + 4) {
            Some(t) => dynamic |= u32::from_le_bytes([t[0], t[1], t[2], t[3]]) == 3,
            None => seen_all = false,
        }
    }
    Kind::Elf {
        dynamic: dynamic || !seen_all,
    }
}

/// The ELF program that runs a file, and the arguments placed between the
/// guest's `argv[0]` and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The ELF program QEMU loads.
    pub program: PathBuf,
    /// `argv[0]` when the kernel would set it (a script's interpreter).
    pub argv0: Option<OsString>,
    /// Arguments before the caller's own (the interpreter's argument and
    /// the script).
    pub args: Vec<OsString>,
    /// Whether the program is dynamically linked (a preload reaches its
    /// children).
    pub dynamic: bool,
}

/// Why a file cannot be launched under QEMU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It (or its interpreter) cannot be read: the errno.
    Io(PathBuf, i32),
    /// An ELF file for another machine (QEMU here runs x86-64).
    Foreign(PathBuf),
    /// Neither ELF nor `#!` script, or scripts nested too deep: ENOEXEC.
    NotExecutable(PathBuf),
}

/// The ELF program that runs `path` (checked executable by the caller):
/// itself, or its `#!` interpreters in turn; a file of neither kind runs
/// under `/bin/sh` when `shell_fallback` (as `execvp` does).
pub fn resolve(path: &Path, shell_fallback: bool) -> Result<Launch, Refused> {
    let mut prefix: Vec<OsString> = Vec::new();
    let mut file = path.to_path_buf();
    let mut argv0 = None;
    for _ in 0..=MAX_SCRIPT_DEPTH {
        let h =
            head(&file).map_err(|e| Refused::Io(file.clone(), e.raw_os_error().unwrap_or(0)))?;
        match kind(&h) {
            Kind::Elf { dynamic } => {
                return Ok(Launch {
                    program: file,
                    argv0,
                    args: prefix,
                    dynamic,
                });
            }
            Kind::ForeignElf => return Err(Refused::Foreign(file)),
            Kind::Script { interpreter, arg } => {
                // The script runs as the interpreter's argument, after the
                // interpreter's own optional argument.
                let mut p = Vec::with_capacity(prefix.len() + 2);
                p.extend(arg);
                p.push(file.clone().into_os_string());
                p.extend(prefix);
                prefix = p;
                argv0 = Some(interpreter.clone().into_os_string());
                file = interpreter;
            }
            Kind::Other if shell_fallback && prefix.is_empty() => {
                prefix = vec![file.into_os_string()];
                argv0 = Some("/bin/sh".into());
                file = PathBuf::from("/bin/sh");
            }
            Kind::Other => return Err(Refused::NotExecutable(file)),
        }
    }
    Err(Refused::NotExecutable(path.to_path_buf()))
}

/// `name` looked up as a shell does: a name with a slash is itself;
/// otherwise the first executable regular file of that name in the
/// folders of `path_var` (an empty entry is the current folder).
pub fn search(name: &OsStr, path_var: Option<&OsStr>) -> Option<PathBuf> {
    if name.as_bytes().contains(&b'/') {
        return Some(PathBuf::from(name));
    }
    if name.is_empty() {
        return None;
    }
    let dirs = path_var.map_or(&b"/usr/local/bin:/usr/bin:/bin"[..], OsStr::as_bytes);
    dirs.split(|&b| b == b':').find_map(|d| {
        let d = if d.is_empty() { &b"."[..] } else { d };
        let p = Path::new(OsStr::from_bytes(d)).join(name);
        executable(&p).then_some(p)
    })
}

/// A regular file with an execute bit.
pub fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether running `p` would change the process's user or group (set-user
/// or set-group ID): QEMU cannot run it with those rights.
pub fn privileged(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o6000 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Config {
        Config {
            qemu: "/usr/bin/qemu-x86_64".into(),
            plugin: "/t/libplugin.so".into(),
            out: "/tmp/x".into(),
            preload: "/t/libfollow.so".into(),
            cpu: None,
        }
    }

    #[test]
    fn the_config_round_trips_and_refuses_commas() {
        let c = cfg();
        assert_eq!(Config::decode(&c.encode()), Some(c.clone()));
        let with_cpu = Config {
            cpu: Some("max,family=26,model-id=A,, B".into()),
            ..c.clone()
        };
        assert_eq!(Config::decode(&with_cpu.encode()), Some(with_cpu.clone()));
        assert!(with_cpu.check().is_ok());
        assert_eq!(Config::decode(OsStr::new("a\x1fb")), None);
        assert!(c.check().is_ok());
        let bad = Config {
            out: "/tmp/a,b".into(),
            ..c
        };
        assert!(bad.check().unwrap_err().contains("no commas"));
    }

    #[test]
    fn shebang_lines_give_the_interpreter_and_one_argument() {
        assert_eq!(
            kind(b"#!/bin/sh\necho"),
            Kind::Script {
                interpreter: "/bin/sh".into(),
                arg: None
            }
        );
        assert_eq!(
            kind(b"#! /usr/bin/env  python3 -u \n"),
            Kind::Script {
                interpreter: "/usr/bin/env".into(),
                arg: Some("python3 -u".into())
            }
        );
        assert_eq!(kind(b"echo hi\n"), Kind::Other);
        let mut elf32 = b"\x7fELF\x01\x01".to_vec();
        elf32.resize(64, 0);
        assert_eq!(kind(&elf32), Kind::ForeignElf);
    }

    #[test]
    fn programs_and_scripts_resolve_to_an_elf_with_the_kernels_arguments() {
        let sh = resolve(Path::new("/bin/sh"), false).unwrap();
        assert!(sh.dynamic && sh.args.is_empty() && sh.argv0.is_none());
        let dir = std::env::temp_dir().join(format!("carmbench-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("s");
        std::fs::write(&script, "#!/bin/sh -e\necho\n").unwrap();
        let l = resolve(&script, false).unwrap();
        assert_eq!(l.program, PathBuf::from("/bin/sh"));
        assert_eq!(l.argv0, Some("/bin/sh".into()));
        assert_eq!(l.args, vec![OsString::from("-e"), script.clone().into()]);
        let plain = dir.join("p");
        std::fs::write(&plain, "echo\n").unwrap();
        assert_eq!(
            resolve(&plain, false),
            Err(Refused::NotExecutable(plain.clone()))
        );
        assert_eq!(
            resolve(&plain, true).unwrap().args,
            vec![OsString::from(&plain)]
        );
        let cmd = cfg().command(
            &l,
            OsStr::new("./s"),
            &[OsStr::new("x")],
            Some(OsStr::new("/a.so")),
        );
        let text: Vec<_> = cmd
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(text[2], "file=/t/libplugin.so,out=/tmp/x");
        assert_eq!(text[4], "LD_PRELOAD=/t/libfollow.so:/a.so");
        assert_eq!(
            &text[9..],
            [
                "-0",
                "/bin/sh",
                "/bin/sh",
                "-e",
                script.to_str().unwrap(),
                "x"
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_are_searched_on_path_as_a_shell_does() {
        assert_eq!(search(OsStr::new("./x"), None), Some(PathBuf::from("./x")));
        let p = search(OsStr::new("sh"), Some(OsStr::new("/nonexistent::/bin"))).unwrap();
        assert_eq!(p, PathBuf::from("/bin/sh"));
        assert_eq!(
            search(OsStr::new("no-such-program-x"), Some(OsStr::new("/bin"))),
            None
        );
    }
}
