//! The CPU the emulated program is shown: this machine's own identity
//! (vendor, family, model, stepping, brand string, cache descriptors) and
//! every feature QEMU can emulate that this CPU has, none that it lacks. Code
//! that chooses its path by CPU (BLAS libraries, numpy's SIMD loops,
//! glibc's string functions, function multiversioning) then takes under
//! emulation the path it takes natively, except where that path needs a
//! feature QEMU cannot emulate: those features are named.
//!
//! What QEMU's `max` model offers is read from a guest: carmbench itself,
//! run under QEMU (`carmbench cpuid`), prints what CPUID tells it.

use crate::error::{Error, Result};
use crate::results::apps::EmulatedCpu;
use std::path::Path;
use std::process::Command;

/// Words of CPUID feature flags, in `arch::FEATURE_WORDS` order.
pub type Words = [u32; crate::arch::FEATURE_WORDS.len()];

/// A CPU as CPUID describes it to a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuView {
    /// Vendor string ("AuthenticAMD").
    pub vendor: String,
    /// Family, base and extended.
    pub family: u32,
    /// Model, with the extended model.
    pub model: u32,
    /// Stepping.
    pub stepping: u32,
    /// Brand string.
    pub brand: String,
    /// The feature words.
    pub words: Words,
}

impl CpuView {
    /// What CPUID tells this process.
    pub fn here() -> CpuView {
        let id = crate::arch::cpu_id();
        CpuView {
            vendor: id.vendor,
            family: id.family,
            model: id.model,
            stepping: crate::arch::stepping(),
            brand: crate::arch::brand(),
            words: crate::arch::feature_words(),
        }
    }

    /// One line: what `carmbench cpuid` prints and [`CpuView::parse`] reads.
    pub fn line(&self) -> String {
        let words: Vec<String> = self.words.iter().map(|w| format!("{w:08x}")).collect();
        format!(
            "{}|{}|{}|{}|{}|{}",
            self.vendor,
            self.family,
            self.model,
            self.stepping,
            words.join(","),
            self.brand
        )
    }

    /// The view in a [`CpuView::line`].
    pub fn parse(line: &str) -> Option<CpuView> {
        let mut f = line.trim_end_matches('\n').splitn(6, '|');
        let vendor = f.next()?.to_string();
        let num = |s: Option<&str>| s?.parse::<u32>().ok();
        let (family, model, stepping) = (num(f.next())?, num(f.next())?, num(f.next())?);
        let hex: Vec<u32> = (f.next()?.split(','))
            .map(|w| u32::from_str_radix(w, 16).ok())
            .collect::<Option<_>>()?;
        Some(CpuView {
            vendor,
            family,
            model,
            stepping,
            words: hex.try_into().ok()?,
            brand: f.next()?.to_string(),
        })
    }

    /// Whether the view has feature `f`.
    pub fn has(&self, f: &Flag) -> bool {
        self.words[f.word] >> f.bit & 1 == 1
    }
}

/// One CPUID feature flag: where it is, and QEMU's name for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    /// Index in `arch::FEATURE_WORDS`.
    pub word: usize,
    /// Bit.
    pub bit: u32,
    /// QEMU's name (`-cpu max,-NAME`).
    pub name: &'static str,
    /// An instruction-set extension (what code chooses its path by), not a
    /// system feature.
    pub isa: bool,
}

/// The flags of the feature words, by their bits in the Intel SDM and the
/// AMD APM (CPUID), with QEMU's names. Flags set only by the OS (OSXSAVE,
/// OSPKE) are left out: they follow the others.
#[rustfmt::skip]
pub const FLAGS: &[Flag] = &{
    const fn f(word: usize, bit: u32, name: &'static str, isa: bool) -> Flag {
        Flag {
            word,
            bit,
            name,
            isa,
        }
    }
    const I: bool = true;
    const S: bool = false;
    [
        f(0, 0, "pni", I), f(0, 1, "pclmulqdq", I), f(0, 2, "dtes64", S), f(0, 3, "monitor", S),
        f(0, 4, "ds-cpl", S), f(0, 5, "vmx", S), f(0, 6, "smx", S), f(0, 7, "est", S),
        f(0, 8, "tm2", S), f(0, 9, "ssse3", I), f(0, 10, "cid", S), f(0, 12, "fma", I),
        f(0, 13, "cx16", I), f(0, 14, "xtpr", S), f(0, 15, "pdcm", S), f(0, 17, "pcid", S),
        f(0, 18, "dca", S), f(0, 19, "sse4.1", I), f(0, 20, "sse4.2", I), f(0, 21, "x2apic", S),
        f(0, 22, "movbe", I), f(0, 23, "popcnt", I), f(0, 24, "tsc-deadline", S),
        f(0, 25, "aes", I), f(0, 26, "xsave", I), f(0, 28, "avx", I), f(0, 29, "f16c", I),
        f(0, 30, "rdrand", I), f(0, 31, "hypervisor", S),
        f(1, 0, "fpu", S), f(1, 1, "vme", S), f(1, 2, "de", S), f(1, 3, "pse", S),
        f(1, 4, "tsc", S), f(1, 5, "msr", S), f(1, 6, "pae", S), f(1, 7, "mce", S),
        f(1, 8, "cx8", I), f(1, 9, "apic", S), f(1, 11, "sep", S), f(1, 12, "mtrr", S),
        f(1, 13, "pge", S), f(1, 14, "mca", S), f(1, 15, "cmov", I), f(1, 16, "pat", S),
        f(1, 17, "pse36", S), f(1, 18, "pn", S), f(1, 19, "clflush", I), f(1, 21, "ds", S),
        f(1, 22, "acpi", S), f(1, 23, "mmx", I), f(1, 24, "fxsr", I), f(1, 25, "sse", I),
        f(1, 26, "sse2", I), f(1, 27, "ss", S), f(1, 28, "ht", S), f(1, 29, "tm", S),
        f(1, 31, "pbe", S),
        f(2, 0, "fsgsbase", I), f(2, 1, "tsc-adjust", S), f(2, 2, "sgx", S), f(2, 3, "bmi1", I),
        f(2, 4, "hle", I), f(2, 5, "avx2", I), f(2, 7, "smep", S), f(2, 8, "bmi2", I),
        f(2, 9, "erms", I), f(2, 10, "invpcid", S), f(2, 11, "rtm", I), f(2, 14, "mpx", I),
        f(2, 16, "avx512f", I), f(2, 17, "avx512dq", I), f(2, 18, "rdseed", I),
        f(2, 19, "adx", I), f(2, 20, "smap", S), f(2, 21, "avx512ifma", I),
        f(2, 22, "pcommit", I), f(2, 23, "clflushopt", I), f(2, 24, "clwb", I),
        f(2, 25, "intel-pt", S), f(2, 26, "avx512pf", I), f(2, 27, "avx512er", I),
        f(2, 28, "avx512cd", I), f(2, 29, "sha-ni", I), f(2, 30, "avx512bw", I),
        f(2, 31, "avx512vl", I),
        f(3, 1, "avx512vbmi", I), f(3, 2, "umip", S), f(3, 3, "pku", S), f(3, 5, "waitpkg", I),
        f(3, 6, "avx512vbmi2", I), f(3, 8, "gfni", I), f(3, 9, "vaes", I),
        f(3, 10, "vpclmulqdq", I), f(3, 11, "avx512vnni", I), f(3, 12, "avx512bitalg", I),
        f(3, 14, "avx512-vpopcntdq", I), f(3, 16, "la57", S), f(3, 22, "rdpid", I),
        f(3, 25, "cldemote", I), f(3, 27, "movdiri", I), f(3, 28, "movdir64b", I),
        f(3, 30, "sgxlc", S), f(3, 31, "pks", S),
        f(4, 2, "avx512-4vnniw", I), f(4, 3, "avx512-4fmaps", I), f(4, 4, "fsrm", I),
        f(4, 8, "avx512-vp2intersect", I), f(4, 10, "md-clear", S), f(4, 14, "serialize", I),
        f(4, 16, "tsx-ldtrk", I), f(4, 22, "amx-bf16", I), f(4, 23, "avx512-fp16", I),
        f(4, 24, "amx-tile", I), f(4, 25, "amx-int8", I), f(4, 26, "spec-ctrl", S),
        f(4, 27, "stibp", S), f(4, 29, "arch-capabilities", S), f(4, 30, "core-capability", S),
        f(4, 31, "ssbd", S),
        f(5, 4, "avx-vnni", I), f(5, 5, "avx512-bf16", I),
        f(6, 0, "lahf-lm", I), f(6, 1, "cmp-legacy", S), f(6, 2, "svm", S),
        f(6, 3, "extapic", S), f(6, 4, "cr8legacy", S), f(6, 5, "abm", I),
        f(6, 6, "sse4a", I), f(6, 7, "misalignsse", I), f(6, 8, "3dnowprefetch", I),
        f(6, 9, "osvw", S), f(6, 10, "ibs", S), f(6, 11, "xop", I), f(6, 12, "skinit", S),
        f(6, 13, "wdt", S), f(6, 15, "lwp", I), f(6, 16, "fma4", I), f(6, 17, "tce", S),
        f(6, 19, "nodeid-msr", S), f(6, 21, "tbm", I), f(6, 22, "topoext", S),
        f(6, 23, "perfctr-core", S), f(6, 24, "perfctr-nb", S),
        f(7, 11, "syscall", S), f(7, 20, "nx", S), f(7, 22, "mmxext", I),
        f(7, 25, "fxsr-opt", S), f(7, 26, "pdpe1gb", S), f(7, 27, "rdtscp", I),
        f(7, 29, "lm", S), f(7, 30, "3dnowext", I), f(7, 31, "3dnow", I),
        f(8, 0, "xsaveopt", I), f(8, 1, "xsavec", I), f(8, 2, "xgetbv1", I),
        f(8, 3, "xsaves", I), f(8, 4, "xfd", S),
    ]
};

/// The flag QEMU names `name`.
pub fn flag(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.name == name)
}

/// The CPU the emulated program is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// This machine's CPU, as its programs see it natively.
    pub host: CpuView,
    /// Features QEMU's model has and this CPU lacks: turned off.
    pub masked: Vec<&'static str>,
    /// This CPU's instruction-set features the guest does not get: QEMU
    /// cannot emulate them, or they were asked to be left out.
    pub hidden: Vec<&'static str>,
    /// Of those, the ones asked to be left out (`--emulate-without`).
    pub withheld: Vec<&'static str>,
}

impl Identity {
    /// The identity of `host` under a QEMU whose `max` model shows `max`,
    /// the features `without` left out too.
    pub fn of(host: CpuView, max: &CpuView, without: &[&'static Flag]) -> Identity {
        let asked = |f: &Flag| without.iter().any(|w| w.name == f.name);
        let masked = (FLAGS.iter())
            .filter(|f| max.has(f) && (!host.has(f) || asked(f)))
            .map(|f| f.name)
            .collect();
        let hidden = (FLAGS.iter())
            .filter(|f| f.isa && host.has(f) && (!max.has(f) || asked(f)))
            .map(|f| f.name)
            .collect();
        let withheld = without.iter().map(|f| f.name).collect();
        Identity {
            host,
            masked,
            hidden,
            withheld,
        }
    }

    /// QEMU's `-cpu` value: its `max` model with this CPU's identity, its
    /// cache descriptors passed through, the features it lacks turned off.
    pub fn cpu_arg(&self) -> String {
        let h = &self.host;
        let mut arg = String::from("max");
        // QEMU takes a vendor of exactly 12 characters.
        if h.vendor.len() == 12 && h.vendor.is_ascii() {
            arg += &format!(",vendor={}", h.vendor);
        }
        arg += &format!(
            ",family={},model={},stepping={}",
            h.family, h.model, h.stepping
        );
        if !h.brand.is_empty() {
            // A comma inside an option's value is written twice.
            arg += &format!(",model-id={}", h.brand.replace(',', ",,"));
        }
        arg += ",host-cache-info=on";
        for m in &self.masked {
            arg += &format!(",-{m}");
        }
        arg
    }

    /// What the apps file records of it.
    pub fn record(&self) -> EmulatedCpu {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        EmulatedCpu {
            vendor: self.host.vendor.clone(),
            family: self.host.family,
            model: self.host.model,
            stepping: self.host.stepping,
            brand: self.host.brand.clone(),
            hidden: names(&self.hidden),
            masked: names(&self.masked),
        }
    }

    /// Resolve it for `qemu`: QEMU's `max` model read from a guest (`probe`,
    /// a carmbench that answers `cpuid`), then checked from the guest once
    /// given.
    pub fn resolve(qemu: &Path, probe: &Path, without: &[&'static Flag]) -> Result<Identity> {
        let max = guest_view(qemu, probe, "max")?;
        let id = Identity::of(CpuView::here(), &max, without);
        let seen = guest_view(qemu, probe, &id.cpu_arg())?;
        let h = &id.host;
        let same = (seen.vendor == h.vendor || h.vendor.len() != 12)
            && (seen.family, seen.model, seen.stepping) == (h.family, h.model, h.stepping);
        let extra: Vec<&str> = (FLAGS.iter())
            .filter(|f| seen.has(f) && id.masked.contains(&f.name))
            .map(|f| f.name)
            .collect();
        if !same || !extra.is_empty() {
            return Err(Error::Io(format!(
                "QEMU did not take this CPU's identity (the guest saw {} family {:#x} model {:#x} stepping {}{})",
                seen.vendor,
                seen.family,
                seen.model,
                seen.stepping,
                match extra.is_empty() {
                    true => String::new(),
                    false => format!(", with {}", extra.join(", ")),
                }
            )));
        }
        Ok(id)
    }
}

/// What CPUID tells a guest of `qemu -cpu cpu`.
fn guest_view(qemu: &Path, probe: &Path, cpu: &str) -> Result<CpuView> {
    let out = Command::new(qemu)
        .args(["-cpu", cpu])
        .arg(probe)
        .arg("cpuid")
        .env_remove("LD_PRELOAD")
        .output()
        .map_err(|e| Error::Io(format!("cannot run {}: {e}", qemu.display())))?;
    let text = String::from_utf8_lossy(&out.stdout);
    CpuView::parse(text.lines().next().unwrap_or_default()).ok_or_else(|| {
        let err = String::from_utf8_lossy(&out.stderr);
        Error::Io(format!(
            "the CPU QEMU shows a guest could not be read ({} cpuid under qemu -cpu {cpu}: {})",
            probe.display(),
            err.lines().next().unwrap_or("no answer")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(words: Words) -> CpuView {
        CpuView {
            vendor: "AuthenticAMD".into(),
            family: 0x1A,
            model: 2,
            stepping: 1,
            brand: "AMD EPYC 9B14, 96 cores".into(),
            words,
        }
    }

    fn set(names: &[&str]) -> Words {
        let mut w = [0; crate::arch::FEATURE_WORDS.len()];
        for n in names {
            let f = flag(n).unwrap();
            w[f.word] |= 1 << f.bit;
        }
        w
    }

    #[test]
    fn flags_are_named_once_each_at_their_own_bit() {
        for (i, a) in FLAGS.iter().enumerate() {
            for b in &FLAGS[i + 1..] {
                assert_ne!(a.name, b.name);
                assert!((a.word, a.bit) != (b.word, b.bit), "{} {}", a.name, b.name);
            }
            assert!(a.word < crate::arch::FEATURE_WORDS.len() && a.bit < 32);
        }
        // Known bits: AVX2 is leaf 7 EBX bit 5, FMA leaf 1 ECX bit 12.
        assert_eq!(
            (flag("avx2").unwrap().word, flag("avx2").unwrap().bit),
            (2, 5)
        );
        assert_eq!(
            (flag("fma").unwrap().word, flag("fma").unwrap().bit),
            (0, 12)
        );
    }

    #[test]
    fn the_identity_shows_what_both_have_and_names_what_qemu_lacks() {
        let host = view(set(&["sse2", "avx2", "fma", "avx512f", "avx512vl", "tsc"]));
        let max = view(set(&["sse2", "avx2", "fma", "monitor", "tsc", "sha-ni"]));
        let id = Identity::of(host.clone(), &max, &[]);
        assert_eq!(id.masked, ["monitor", "sha-ni"]);
        assert_eq!(id.hidden, ["avx512f", "avx512vl"]);
        let arg = id.cpu_arg();
        assert!(arg.starts_with("max,vendor=AuthenticAMD,family=26,model=2,stepping=1,"));
        assert!(arg.contains("model-id=AMD EPYC 9B14,, 96 cores,host-cache-info=on"));
        assert!(arg.ends_with(",-monitor,-sha-ni"));
        // Left out on request: masked, and named as withheld.
        let id = Identity::of(host.clone(), &max, &[flag("avx2").unwrap()]);
        assert!(id.masked.contains(&"avx2") && id.hidden.contains(&"avx2"));
        assert_eq!(id.withheld, ["avx2"]);
        let r = id.record();
        assert_eq!((r.family, r.model, r.stepping), (0x1A, 2, 1));
        // The probe's line round-trips.
        assert_eq!(CpuView::parse(&host.line()), Some(host));
        assert_eq!(CpuView::parse("x|1|2"), None);
    }
}
