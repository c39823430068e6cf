//! Every AArch64 kernel's declared counts match the instructions of its
//! inner loop, read back by disassembling this test binary with the aarch64
//! objdump ($CARMBENCH_OBJDUMP, else aarch64-linux-gnu-objdump). Run under
//! QEMU by scripts/test-aarch64.sh: SVE offsets (`mul vl`) are in bytes at
//! the vector length QEMU gives, and SVE kernels are checked where it has SVE.
#![cfg(target_arch = "aarch64")]

mod common;

use common::Insn;

use carmbench::kernels::{Decl, KERNELS, Kind};
use carmbench::machine::isa::Isa;
use std::collections::HashMap;
use std::process::Command;

/// All kernel symbols of this binary, disassembled by the aarch64 objdump.
fn disassemble() -> HashMap<String, Vec<Insn>> {
    let mut objdump = Command::new(
        std::env::var("CARMBENCH_OBJDUMP").unwrap_or_else(|_| "aarch64-linux-gnu-objdump".into()),
    );
    objdump.args(["-d", "--no-show-raw-insn"]);
    common::disassemble_kernels(objdump)
}

/// Every loop, in order of its backward branch.
fn loops(code: &[Insn]) -> Vec<&[Insn]> {
    let mut v = Vec::new();
    for (i, insn) in code.iter().enumerate() {
        if insn.mnemonic.starts_with("b.") {
            let target = insn
                .operands
                .split_whitespace()
                .next()
                .and_then(|t| u64::from_str_radix(t, 16).ok())
                .unwrap();
            if target <= insn.addr {
                let start = code.iter().position(|x| x.addr == target).unwrap();
                v.push(&code[start..=i]);
            }
        }
    }
    v
}

#[derive(Debug, Default)]
struct Counts {
    loads: u32,
    stores: u32,
    adds: u32,
    muls: u32,
    fmas: u32,
    divs: u32,
    dots: u32,
    mmlas: u32,
    mem_widths: Vec<u32>,
    /// (base register, first byte, last byte, stores).
    touched: Vec<(String, i64, i64, bool)>,
    /// (kind, base register, displacement).
    prefetches: Vec<(String, String, i64)>,
    /// (register, bytes added per iteration).
    advances: Vec<(String, i64)>,
    fp_widths: Vec<u32>,
    precisions: Vec<char>,
}

/// Bytes of a register by its name: q16, d8, s4, z3.d (the vector length).
fn reg_width(r: &str, vl: u32) -> u32 {
    let r = r.trim().trim_start_matches('{').trim_end_matches('}');
    match r.chars().next() {
        Some('q') | Some('v') => 16,
        Some('d') => 8,
        Some('s') => 4,
        Some('z') => vl,
        _ => panic!("register {r}"),
    }
}

/// An immediate: #32, #0x100, #-16.
fn imm(s: &str) -> i64 {
    let s = s.trim().trim_start_matches('#');
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |x| (true, x));
    let v = match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .unwrap_or_else(|_| panic!("immediate {s}"));
    if neg { -v } else { v }
}

/// Base register and byte offset of `[x9]`, `[x9, #32]`, `[x9, #3, mul vl]`.
fn address(ops: &str, vl: u32) -> (String, i64) {
    let inner = ops
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(a, _)| a)
        .unwrap_or_else(|| panic!("no address in {ops}"));
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let off = match parts.as_slice() {
        [_] => 0,
        [_, o] => imm(o),
        [_, o, "mul vl"] => imm(o) * i64::from(vl),
        _ => panic!("address {inner}"),
    };
    (parts[0].to_string(), off)
}

fn count(body: &[Insn], vl: u32) -> Counts {
    let mut c = Counts::default();
    // Registers set to another plus an offset (the SVE prefetch base).
    let mut alias: HashMap<String, (String, i64)> = HashMap::new();
    for i in body {
        let m = i.mnemonic.as_str();
        let ops: Vec<&str> = i.operands.split(", ").collect();
        let mut access = |store: bool, regs: &[&str], addr: &str| {
            let (base, off) = address(addr, vl);
            let mut at = off;
            for r in regs {
                let w = reg_width(r, vl);
                c.mem_widths.push(w);
                c.touched
                    .push((base.clone(), at, at + i64::from(w) - 1, store));
                at += i64::from(w);
                if store {
                    c.stores += 1;
                } else {
                    c.loads += 1;
                }
            }
        };
        match m {
            "ldr" | "ld1d" => access(false, &ops[..1], &i.operands),
            "ldp" => access(false, &ops[..2], &i.operands),
            "str" | "st1d" | "stnt1d" => access(true, &ops[..1], &i.operands),
            "stp" | "stnp" => access(true, &ops[..2], &i.operands),
            "prfm" => {
                let (base, off) = address(&i.operands, vl);
                c.prefetches.push((ops[0].to_string(), base, off));
            }
            "prfb" => {
                let (base, off) = address(&i.operands, vl);
                let (base, off) = alias
                    .get(&base)
                    .map_or((base, off), |(b, o)| (b.clone(), o + off));
                c.prefetches.push((ops[0].to_string(), base, off));
            }
            "add" | "addvl" if ops.len() >= 3 && ops[2].starts_with('#') => {
                // objdump writes #4096 as `#0x1, lsl #12`.
                let shift = if ops.get(3) == Some(&"lsl #12") {
                    1 << 12
                } else {
                    1
                };
                let k = imm(ops[2]) * shift * if m == "addvl" { i64::from(vl) } else { 1 };
                if ops[0] == ops[1] {
                    c.advances.push((ops[0].to_string(), k));
                } else {
                    alias.insert(ops[0].to_string(), (ops[1].to_string(), k));
                }
            }
            // Integer vector arithmetic: the INT32 kernels.
            "add" | "mul" if ops[0].starts_with(['v', 'z']) => {
                c.fp_widths
                    .push(reg_width(ops[0].split('.').next().unwrap(), vl));
                c.precisions.push('i');
                if m == "add" {
                    c.adds += 1;
                } else {
                    c.muls += 1;
                }
            }
            // Loop control (objdump spells b.lo and b.hs b.cc and b.cs).
            "add" | "sub" | "subs" | "cmp" | "mov" => {}
            // Dot products and matrix multiply-accumulates: the precision is
            // their sources' (b: INT8, h: BF16).
            "sdot" | "udot" | "bfdot" | "smmla" | "ummla" | "bfmmla" => {
                let (_, t) = ops[1].split_once('.').unwrap();
                c.fp_widths
                    .push(reg_width(ops[0].split('.').next().unwrap(), vl));
                c.precisions.push(if t.ends_with('b') { 'b' } else { 'f' });
                if m.ends_with("mmla") {
                    c.mmlas += 1;
                } else {
                    c.dots += 1;
                }
            }
            _ if m.starts_with("b.") => {}
            _ => {
                let kind = match m {
                    "fadd" => "add",
                    "fmul" => "mul",
                    "fdiv" => "div",
                    "fmla" | "fmadd" => "fma",
                    _ => panic!("unexpected instruction in a kernel loop: {i:?}"),
                };
                let d = ops[0];
                let (w, p) = if let Some((r, t)) = d.split_once('.') {
                    let p = match t.chars().last() {
                        Some('d') => 'd',
                        Some('h') => 'h',
                        _ => 's',
                    };
                    (reg_width(r, vl), p)
                } else {
                    (reg_width(d, vl), d.chars().next().unwrap())
                };
                c.fp_widths.push(w);
                c.precisions.push(p);
                match kind {
                    "add" => c.adds += 1,
                    "mul" => c.muls += 1,
                    "div" => c.divs += 1,
                    _ => c.fmas += 1,
                }
            }
        }
    }
    c
}

/// The streams (asm/aarch64/common.S): A and B are read, C is written.
const STREAMS: [(&str, char); 3] = [("x9", 'A'), ("x10", 'B'), ("x11", 'C')];

fn check_strides(d: &Decl, c: &Counts) {
    let touched: Vec<(String, i64, i64)> =
        c.touched.iter().map(|t| (t.0.clone(), t.1, t.2)).collect();
    common::check_strides(d, STREAMS, &c.advances, &touched);
}

/// A prefetching twin asks for every 64-byte line (SVE: every vector) its
/// unit touches, D bytes ahead, for store on a stream it writes.
fn check_prefetches(d: &Decl, mem: &Counts, vl: u32) {
    let mut want: Vec<(String, String, i64)> = Vec::new();
    if d.prefetch > 0 {
        let step = if d.isa == Isa::Sve { i64::from(vl) } else { 64 };
        for (reg, _) in STREAMS {
            let spans: Vec<_> = mem.touched.iter().filter(|t| t.0 == reg).collect();
            if spans.is_empty() {
                continue;
            }
            let last = spans.iter().map(|t| t.2).max().unwrap();
            let kind = if spans.iter().any(|t| t.3) {
                "pstl1keep"
            } else {
                "pldl1keep"
            };
            let mut at = 0;
            while at <= last {
                want.push((kind.into(), reg.into(), at + i64::from(d.prefetch)));
                at += step;
            }
        }
    }
    let mut got = mem.prefetches.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "prefetches of {}", d.name);
}

fn check_counts(d: &Decl, c: &Counts) {
    if d.kind == Kind::Compute {
        assert!(
            c.advances.is_empty(),
            "{}: an FP kernel moves no pointer",
            d.name
        );
    } else {
        check_strides(d, c);
    }
    let ctx = format!("{} ({}): {c:?}", d.name, d.file);
    assert_eq!(
        (
            c.loads, c.stores, c.adds, c.muls, c.fmas, c.divs, c.dots, c.mmlas
        ),
        (
            d.loads, d.stores, d.adds, d.muls, d.fmas, d.divs, d.dots, d.mmlas
        ),
        "counts of {ctx}"
    );
    assert!(
        c.mem_widths.iter().all(|w| *w == d.width()),
        "access width of {ctx}"
    );
    assert!(
        c.fp_widths.iter().all(|w| *w == d.width()),
        "FP width of {ctx}"
    );
    if let Some(p) = d.precision {
        let want = common::precision_char(p);
        assert!(
            c.precisions.iter().all(|x| *x == want),
            "precision of {ctx}"
        );
    } else {
        assert!(
            c.fp_widths.is_empty(),
            "no FP op in a bandwidth kernel: {ctx}"
        );
    }
    let bytes: u64 = c.mem_widths.iter().map(|w| u64::from(*w)).sum();
    assert_eq!(bytes, d.bytes_per_iter(), "bytes of {ctx}");
    let lanes = |w: u32| u64::from(w / d.precision.map_or(1, |p| p.bytes()));
    let flops: u64 = c.fp_widths.iter().map(|w| lanes(*w)).sum::<u64>()
        + u64::from(c.fmas + c.dots + 3 * c.mmlas) * lanes(d.width());
    assert_eq!(flops, d.flops_per_iter(), "flops of {ctx}");
}

fn check(d: &Decl, code: &[Insn], vl: u32) {
    let l = loops(code);
    if d.kind != Kind::Validation {
        check_counts(d, &count(l[0], vl));
        return;
    }
    // The FP unit's loop, inside the memory unit's: what the latter holds
    // besides the former is the memory unit.
    assert!(
        l.len() >= 4,
        "FP, memory, iteration and pass loops in {}",
        d.name
    );
    let (fp_loop, mem_loop) = (l[0], l[1]);
    let inner: Vec<u64> = fp_loop.iter().map(|i| i.addr).collect();
    let mem_only: Vec<Insn> = mem_loop
        .iter()
        .filter(|i| !inner.contains(&i.addr))
        .cloned()
        .collect();
    let (mem, fp) = (count(&mem_only, vl), count(fp_loop, vl));
    assert_eq!(
        mem.fp_widths.len(),
        0,
        "no FP op in the memory unit of {}",
        d.name
    );
    assert_eq!(
        fp.loads + fp.stores,
        0,
        "no access in the FP unit of {}",
        d.name
    );
    check_prefetches(d, &mem, vl);
    let both = Counts {
        loads: mem.loads,
        stores: mem.stores,
        mem_widths: mem.mem_widths,
        touched: mem.touched,
        advances: mem.advances,
        ..fp
    };
    check_counts(d, &both);
}

#[test]
fn every_kernel_matches_its_declaration() {
    let code = disassemble();
    let vl = Isa::Sve.width_bytes();
    let mut checked = 0;
    for k in KERNELS {
        if k.decl.isa == Isa::Sve && vl == 0 {
            continue;
        }
        let sym = k.decl.symbol();
        let insns = code
            .get(&sym)
            .unwrap_or_else(|| panic!("{sym} in the binary"));
        check(&k.decl, insns, vl);
        checked += 1;
    }
    assert!(checked >= 2 * (5 + 12 + 16), "{checked} kernels checked");
}

#[test]
fn a_doubled_or_missing_stride_fails() {
    let insn = |m: &str, o: &str| Insn {
        addr: 0,
        mnemonic: m.into(),
        operands: o.into(),
    };
    let k = KERNELS
        .iter()
        .find(|k| k.decl.name == "neon_store")
        .unwrap();
    let body: Vec<Insn> = (0..8)
        .map(|i| insn("stp", &format!("q16, q17, [x11, #{}]", 32 * i)))
        .chain([insn("add", "x11, x11, #0x100")])
        .collect();
    check_counts(&k.decl, &count(&body, 0));
    for wrong in ["#0x200", "#0x80"] {
        let mut b = body.clone();
        b[8] = insn("add", &format!("x11, x11, {wrong}"));
        let r = std::panic::catch_unwind(|| check_counts(&k.decl, &count(&b, 0)));
        assert!(r.is_err(), "advance {wrong} accepted");
    }
    let mut gap = body.clone();
    gap[3] = insn("stp", "q16, q17, [x11, #112]");
    assert!(std::panic::catch_unwind(|| check_counts(&k.decl, &count(&gap, 0))).is_err());
}
