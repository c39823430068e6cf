//! Every kernel's declared counts match the instructions of its inner loop,
//! read back by disassembling this test binary with `objdump`.
#![cfg(target_arch = "x86_64")]

use crate::common::Insn;

use carmbench::kernels::{Decl, KERNELS, Kind};
use std::collections::HashMap;
use std::process::Command;

/// All kernel symbols of this binary, disassembled (Intel syntax).
fn disassemble() -> HashMap<String, Vec<Insn>> {
    let mut objdump = Command::new("objdump");
    objdump.args(["-d", "--no-show-raw-insn", "-M", "intel"]);
    crate::common::disassemble_kernels(objdump)
}

/// Every loop, in order: from the target of a backward conditional branch
/// to that branch.
fn loops(code: &[Insn]) -> Vec<&[Insn]> {
    let mut v = Vec::new();
    for (i, insn) in code.iter().enumerate() {
        if insn.mnemonic.starts_with('j') && insn.mnemonic != "jmp" {
            let target = insn
                .operands
                .split_whitespace()
                .next()
                .and_then(|t| u64::from_str_radix(t, 16).ok())
                .unwrap();
            if target <= insn.addr {
                let start = code
                    .iter()
                    .position(|x| x.addr == target)
                    .expect("branch target in symbol");
                v.push(&code[start..=i]);
            }
        }
    }
    v
}

/// The innermost loop: the first loop found.
fn inner_loop(code: &[Insn]) -> &[Insn] {
    loops(code).first().copied().expect("a loop")
}

/// Counts recovered from a loop body.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    loads: u32,
    stores: u32,
    adds: u32,
    muls: u32,
    fmas: u32,
    divs: u32,
    dots: u32,
    /// `vpmaddwd` whose result the next `vpaddd` adds into a chain.
    madds: u32,
    /// Integer ALU instructions other than adds (and, or, xor, sub).
    alus: u32,
    /// Memory operand sizes in bytes.
    mem_widths: Vec<u32>,
    /// Bytes each access touches: (base register, first byte, last byte,
    /// whether it stores).
    touched: Vec<(String, i64, i64, bool)>,
    /// Prefetches: (mnemonic, base register, displacement).
    prefetches: Vec<(String, String, i64)>,
    /// Pointer advances: (register, bytes added to it per iteration).
    advances: Vec<(String, i64)>,
    /// Vector register widths of FP instructions in bytes (element size for scalar).
    fp_widths: Vec<u32>,
    /// Precisions seen: 'd' or 's' (the FP suffixes), 'h' half, 'f' bfloat16,
    /// 'i', 'w', 'b' 32-, 16- and 8-bit integers.
    precisions: Vec<char>,
    /// Pacing adds (`vpaddq`) of a paced bandwidth kernel: (register, width).
    paces: Vec<(String, u32)>,
    /// The registers the accesses load into or store from.
    access_regs: Vec<String>,
}

fn mem_width(op: &str) -> Option<u32> {
    for (k, w) in [
        ("ZMMWORD", 64),
        ("YMMWORD", 32),
        ("XMMWORD", 16),
        ("QWORD", 8),
        ("DWORD", 4),
    ] {
        if op.contains(&format!("{k} PTR")) {
            return Some(w);
        }
    }
    None
}

/// Base register and displacement of a memory operand such as
/// `YMMWORD PTR [r10+0x20]`.
fn address(op: &str) -> (String, i64) {
    let inner = op
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(a, _)| a)
        .unwrap_or_else(|| panic!("no address in {op}"));
    match inner.split_once(['+', '-']) {
        None => (inner.to_string(), 0),
        Some((base, d)) => {
            let v = i64::from_str_radix(d.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| panic!("displacement of {op}"));
            let neg = inner.as_bytes()[base.len()] == b'-';
            (base.to_string(), if neg { -v } else { v })
        }
    }
}

fn reg_width(ops: &str) -> u32 {
    if ops.contains("zmm") {
        64
    } else if ops.contains("ymm") {
        32
    } else {
        16
    }
}

/// The narrow types' instructions: (kind, precision) by mnemonic, all packed.
fn narrow(m: &str) -> Option<(&'static str, char)> {
    Some(match m {
        "vpdpbusd" => ("dot", 'b'),
        "vpdpwssd" => ("dot", 'w'),
        "vpmaddwd" => ("madd", 'w'),
        "vdpbf16ps" => ("dot", 'f'),
        "vfmadd231ph" => ("fma", 'h'),
        "vpaddd" => ("add", 'i'),
        "vpmulld" => ("mul", 'i'),
        _ => return None,
    })
}

/// Count one narrow-type instruction. A madd is the pair `vpmaddwd t, a, b`
/// then `vpaddd x, x, t` (or `x, t, x`: the assembler may swap the sources
/// for a shorter encoding): the add is part of the pair, not an INT32 add.
fn count_narrow(c: &mut Counts, madd_results: &mut Vec<String>, i: &Insn, kind: &str, prec: char) {
    let operands: Vec<&str> = i.operands.split(',').map(str::trim).collect();
    let adds_to_itself = |t: &str| {
        kind == "add"
            && operands.len() == 3
            && ((operands[1] == operands[0] && operands[2] == t)
                || (operands[2] == operands[0] && operands[1] == t))
    };
    if kind == "madd" {
        madd_results.push(operands[0].to_string());
    } else if let Some(k) = madd_results.iter().position(|r| adds_to_itself(r)) {
        madd_results.remove(k);
        return;
    }
    c.precisions.push(prec);
    c.fp_widths.push(reg_width(&i.operands));
    match kind {
        "dot" => c.dots += 1,
        "madd" => c.madds += 1,
        "fma" => c.fmas += 1,
        "add" => c.adds += 1,
        _ => c.muls += 1,
    }
}

/// Count one integer ALU instruction of an integer kernel (precision
/// `int`): on the general registers (not the loop's counters r8 and r9),
/// or a 64-bit lane add of a vector.
fn count_integer(c: &mut Counts, m: &str, operands: &str) -> bool {
    let dst = operands.split(',').next().unwrap_or("").trim();
    let vector = matches!(m, "paddq" | "vpaddq");
    let gpr = matches!(m, "add" | "and" | "or" | "xor" | "sub")
        && !matches!(dst, "r8" | "r9")
        && !operands.contains('[');
    if !(vector || gpr) {
        return false;
    }
    // Golden Cove's renamer adds and subtracts immediates to 64-bit
    // registers itself: such an op would use no ALU.
    let src = operands.split(',').nth(1).unwrap_or("").trim();
    let immediate = src.starts_with("0x") || src.parse::<i64>().is_ok();
    let gpr64 = dst.starts_with('r') && !dst.ends_with(['d', 'w', 'b']);
    assert!(
        !(matches!(m, "add" | "sub") && immediate && gpr64),
        "{m} {operands}: an immediate added to a 64-bit register needs no ALU on Golden Cove"
    );
    c.precisions.push('q');
    c.fp_widths
        .push(if vector { reg_width(operands) } else { 8 });
    match m {
        "add" | "paddq" | "vpaddq" => c.adds += 1,
        _ => c.alus += 1,
    }
    true
}

fn count(body: &[Insn], integer: bool) -> Counts {
    let mut c = Counts::default();
    // The registers `vpmaddwd` wrote that no `vpaddd` has added yet.
    let mut madd_results: Vec<String> = Vec::new();
    for i in body {
        // `{vex} vpdpbusd ...`: the prefix is not the mnemonic.
        let (m, operands) = match i.mnemonic.as_str() {
            "{vex}" => i.operands.split_once(' ').unwrap_or((&i.operands, "")),
            m => (m, i.operands.as_str()),
        };
        let i = &Insn {
            addr: i.addr,
            mnemonic: m.to_string(),
            operands: operands.to_string(),
        };
        let ops: Vec<&str> = i.operands.splitn(2, ',').collect();
        let is_mem = |o: &str| o.contains('[');
        if integer && count_integer(&mut c, m, &i.operands) {
            continue;
        }
        // Loop control: pointer/counter arithmetic on general registers.
        if matches!(m, "add" | "sub" | "dec" | "inc" | "cmp") || m.starts_with('j') {
            assert!(
                !is_mem(&i.operands),
                "no memory operand in loop control: {i:?}"
            );
            // A stream's pointer moving on: `add reg, imm`.
            if let (Some(reg), Some(imm)) = (
                ops.first().filter(|_| m == "add"),
                ops.get(1).and_then(|o| o.trim().strip_prefix("0x")),
            ) {
                let imm = i64::from_str_radix(imm, 16).expect("hex immediate");
                c.advances.push((reg.trim().to_string(), imm));
            }
            continue;
        }
        if m.starts_with("prefetch") {
            let (base, disp) = address(&i.operands);
            c.prefetches.push((m.to_string(), base, disp));
            continue;
        }
        let dst_mem = ops.first().is_some_and(|o| is_mem(o));
        let src_mem = ops.get(1).is_some_and(|o| is_mem(o));
        if m.contains("mov") {
            let mut access = |op: &str, store: bool| {
                let w = mem_width(op).unwrap_or_else(|| panic!("width of {i:?}"));
                let (base, disp) = address(op);
                c.mem_widths.push(w);
                c.touched.push((base, disp, disp + i64::from(w) - 1, store));
            };
            if dst_mem {
                c.stores += 1;
                access(ops[0], true);
                c.access_regs.push(ops[1].trim().to_string());
            } else if src_mem {
                c.loads += 1;
                access(ops[1], false);
                c.access_regs.push(ops[0].trim().to_string());
            } else {
                panic!("register move inside a kernel loop: {i:?}");
            }
            continue;
        }
        assert!(
            !dst_mem && !src_mem,
            "FP instruction with a memory operand: {i:?}"
        );
        if m == "vpaddq" {
            c.paces
                .push((ops[0].trim().to_string(), reg_width(&i.operands)));
            continue;
        }
        if let Some((kind, prec)) = narrow(m) {
            count_narrow(&mut c, &mut madd_results, i, kind, prec);
            continue;
        }
        let base = m.strip_prefix('v').unwrap_or(m);
        let (kind, suffix) = if let Some(s) = base.strip_prefix("fmadd231") {
            ("fma", s)
        } else if let Some(s) = base.strip_prefix("add") {
            ("add", s)
        } else if let Some(s) = base.strip_prefix("mul") {
            ("mul", s)
        } else if let Some(s) = base.strip_prefix("div") {
            ("div", s)
        } else {
            panic!("unexpected instruction in a kernel loop: {i:?}");
        };
        let (packed, prec) = match suffix {
            "pd" => (true, 'd'),
            "ps" => (true, 's'),
            "sd" => (false, 'd'),
            "ss" => (false, 's'),
            _ => panic!("unexpected FP suffix: {i:?}"),
        };
        c.precisions.push(prec);
        c.fp_widths.push(if packed {
            reg_width(&i.operands)
        } else if prec == 'd' {
            8
        } else {
            4
        });
        match kind {
            "fma" => c.fmas += 1,
            "add" => c.adds += 1,
            "mul" => c.muls += 1,
            _ => c.divs += 1,
        }
    }
    assert!(
        madd_results.is_empty(),
        "a vpmaddwd whose result no vpaddd adds: {madd_results:?}"
    );
    c
}

/// Whether `d` counts integer ALU work (its adds are not loop control).
fn integer(d: &Decl) -> bool {
    d.precision == Some(carmbench::kernels::Precision::Int)
}

fn check(d: &Decl, body: &[Insn]) {
    let c = count(body, integer(d));
    check_counts(d, body, c);
}

/// A validation kernel: its first loop is the FP unit (run while the
/// error term allows), nested in the second, the memory unit's loop; the
/// memory unit is what the second loop holds besides the first. Together
/// they must match the declaration.
fn check_validation(d: &Decl, code: &[Insn]) {
    let l = loops(code);
    assert!(
        l.len() >= 4,
        "FP, memory, iteration and pass loops in {}",
        d.name
    );
    let (fp_loop, mem_loop) = (l[0], l[1]);
    assert!(
        mem_loop.first().unwrap().addr < fp_loop.first().unwrap().addr
            && fp_loop.last().unwrap().addr < mem_loop.last().unwrap().addr,
        "the FP unit loop sits inside the memory unit loop in {}",
        d.name
    );
    let inner: Vec<u64> = fp_loop.iter().map(|i| i.addr).collect();
    let mem_only: Vec<Insn> = mem_loop
        .iter()
        .filter(|i| !inner.contains(&i.addr))
        .cloned()
        .collect();
    let (mem, fp) = (count(&mem_only, false), count(fp_loop, false));
    assert_eq!(
        mem.adds + mem.muls + mem.fmas + mem.divs,
        0,
        "no FP op in the memory unit of {}",
        d.name
    );
    assert_eq!(
        fp.loads + fp.stores,
        0,
        "no memory access in the FP unit of {}",
        d.name
    );
    assert!(
        fp.prefetches.is_empty(),
        "no prefetch in the FP unit of {}",
        d.name
    );
    check_prefetches(d, &mem);
    let mut both = fp;
    both.loads = mem.loads;
    both.stores = mem.stores;
    both.mem_widths = mem.mem_widths;
    both.touched = mem.touched;
    both.advances = mem.advances;
    check_counts(d, mem_loop, both);
}

/// A memory unit prefetches nothing, or (declared `prefetch=D`) exactly the
/// 64-byte lines its accesses touch, each once and D bytes ahead: prefetchw
/// on a stream it stores to, prefetcht0 on one it only loads from.
fn check_prefetches(d: &Decl, mem: &Counts) {
    let mut want: Vec<(String, String, i64)> = Vec::new();
    if d.prefetch > 0 {
        let mut bases: Vec<&String> = mem.touched.iter().map(|t| &t.0).collect();
        bases.sort();
        bases.dedup();
        for base in bases {
            let spans = mem.touched.iter().filter(|t| &t.0 == base);
            let first = spans.clone().map(|t| t.1).min().unwrap();
            let last = spans.clone().map(|t| t.2).max().unwrap();
            let stored = spans.clone().any(|t| t.3);
            let m = if stored { "prefetchw" } else { "prefetcht0" };
            let mut line = first.div_euclid(64) * 64;
            while line <= last {
                want.push((m.into(), base.clone(), line + i64::from(d.prefetch)));
                line += 64;
            }
        }
    }
    let mut got = mem.prefetches.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "prefetches of {} ({})", d.name, d.file);
}

/// The registers of the streams (`asm/x86_64/common.S`): A and B are read, C is
/// written.
const STREAMS: [(&str, char); 3] = [("r10", 'A'), ("r11", 'B'), ("rax", 'C')];

fn check_strides(d: &Decl, c: &Counts) {
    let touched: Vec<(String, i64, i64)> =
        c.touched.iter().map(|t| (t.0.clone(), t.1, t.2)).collect();
    crate::common::check_strides(d, STREAMS, &c.advances, &touched);
}

fn check_counts(d: &Decl, body: &[Insn], c: Counts) {
    if d.kind != Kind::Compute {
        check_strides(d, &c);
    } else {
        assert!(
            c.advances.is_empty(),
            "{}: an FP kernel moves no pointer",
            d.name
        );
    }
    let ctx = format!("{} ({}): {body:#?}", d.name, d.file);
    assert_eq!(c.loads, d.loads, "loads of {ctx}");
    assert_eq!(c.stores, d.stores, "stores of {ctx}");
    assert_eq!(c.adds, d.adds, "adds of {ctx}");
    assert_eq!(c.muls, d.muls, "muls of {ctx}");
    assert_eq!(c.fmas, d.fmas, "fmas of {ctx}");
    assert_eq!(c.divs, d.divs, "divs of {ctx}");
    assert_eq!(c.dots, d.dots, "dot products of {ctx}");
    assert_eq!(c.madds, d.madds, "vpmaddwd + vpaddd pairs of {ctx}");
    assert_eq!(c.alus, d.alus, "integer ALU ops of {ctx}");
    assert_eq!(d.mmlas, 0, "no x86 matrix multiply-accumulate: {ctx}");
    assert_eq!(c.paces.len() as u32, d.pace, "pacing adds of {ctx}");
    for (reg, w) in &c.paces {
        assert_eq!(*w, d.width(), "pacing width of {ctx}");
        assert!(
            !c.access_regs.contains(reg),
            "pacing on {reg}, a register an access uses: {ctx}"
        );
    }
    assert!(
        c.mem_widths.iter().all(|w| *w == d.width()),
        "access width {} of {ctx}",
        d.width()
    );
    assert!(
        c.fp_widths.iter().all(|w| *w == d.width()),
        "FP width {} of {ctx}",
        d.width()
    );
    match d.kind {
        Kind::Bandwidth => {
            assert!(c.loads + c.stores > 0, "{ctx}");
            assert!(
                c.fp_widths.is_empty(),
                "no FP op in a bandwidth kernel: {ctx}"
            );
        }
        Kind::Compute | Kind::Validation => {
            if d.kind == Kind::Compute {
                assert_eq!(
                    c.loads + c.stores,
                    0,
                    "no memory access in an FP kernel: {ctx}"
                );
            }
            let want = crate::common::precision_char(d.precision.unwrap());
            assert!(
                c.precisions.iter().all(|x| *x == want),
                "precision of {ctx}"
            );
        }
    }
    // Bytes and flops a kernel reports come from the declaration; recompute
    // them from the instructions and compare.
    let bytes: u64 = c.mem_widths.iter().map(|w| u64::from(*w)).sum();
    assert_eq!(bytes, d.bytes_per_iter(), "bytes per iteration of {ctx}");
    let lanes = |w: u32| {
        if d.kind != Kind::Bandwidth {
            w / d.precision.unwrap().bytes()
        } else {
            0
        }
    };
    let flops: u64 = c
        .fp_widths
        .iter()
        .map(|w| u64::from(lanes(*w)))
        .sum::<u64>()
        + u64::from(c.fmas + c.dots + c.madds) * u64::from(lanes(d.width()));
    assert_eq!(flops, d.flops_per_iter(), "flops per iteration of {ctx}");
}

#[test]
fn every_kernel_matches_its_declaration() {
    let code = disassemble();
    assert!(!KERNELS.is_empty());
    for k in KERNELS {
        let sym = k.decl.symbol();
        let insns = code
            .get(&sym)
            .unwrap_or_else(|| panic!("symbol {sym} in the test binary"));
        if k.decl.kind == Kind::Validation {
            check_validation(&k.decl, insns);
        } else {
            check(&k.decl, inner_loop(insns));
        }
    }
}

/// The arguments of a validation kernel's `VKERNEL` line in its source:
/// name, ISA, precision, mix, op, instruction suffix, END macro, prefetch.
fn vkernel_args(d: &Decl) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(d.file);
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim().starts_with(&format!("VKERNEL {},", d.name)))
        .unwrap_or_else(|| panic!("VKERNEL line of {} in {}", d.name, d.file));
    line.trim()
        .trim_start_matches("VKERNEL")
        .split(',')
        .map(|a| a.trim().to_string())
        .collect()
}

/// A validation kernel is built (`VKERNEL`) from the units its declaration
/// names: ISA, precision, mix, op, the suffix of scalar or packed
/// instructions of that precision, and the prefetch distance.
fn check_vkernel(d: &Decl, args: &[String]) {
    let p = d.precision.unwrap();
    let mix = match d.mix.unwrap() {
        carmbench::kernels::Mix::TwoLdOneSt => "ldldst".to_string(),
        m => m.to_string(),
    };
    let packed = if d.width() == p.bytes() { "s" } else { "p" };
    let suffix = format!("{packed}{}", if p.bytes() == 8 { "d" } else { "s" });
    let want = [
        d.name.to_string(),
        d.isa.to_string(),
        p.to_string(),
        mix,
        d.op.unwrap().to_string(),
        suffix,
    ];
    assert_eq!(
        &args[..6],
        &want[..],
        "VKERNEL arguments of {} ({})",
        d.name,
        d.file
    );
    let pf: u32 = args.get(7).map_or(0, |a| a.parse().unwrap());
    assert_eq!(pf, d.prefetch, "VKERNEL prefetch of {}", d.name);
}

#[test]
fn every_validation_kernel_is_built_from_what_it_declares() {
    let mut n = 0;
    for k in KERNELS.iter().filter(|k| k.decl.kind == Kind::Validation) {
        check_vkernel(&k.decl, &vkernel_args(&k.decl));
        n += 1;
    }
    assert!(n > 0);
    // A line that builds another mix, or forgets the prefetching, fails.
    let twin = KERNELS
        .iter()
        .find(|k| k.decl.name == "avx2_dp_v_2ld1st_fma_pf")
        .unwrap();
    let mut args = vkernel_args(&twin.decl);
    args[3] = "load".into();
    assert!(std::panic::catch_unwind(|| check_vkernel(&twin.decl, &args)).is_err());
    let mut args = vkernel_args(&twin.decl);
    args.truncate(7);
    assert!(std::panic::catch_unwind(|| check_vkernel(&twin.decl, &args)).is_err());
}

#[test]
fn a_stride_that_differs_from_the_declaration_fails() {
    let code = disassemble();
    for name in ["avx2_load", "avx512_2ld1st", "sse_1ld1st"] {
        let k = KERNELS.iter().find(|k| k.decl.name == name).unwrap();
        let body = inner_loop(&code[&k.decl.symbol()]).to_vec();
        check(&k.decl, &body);
        // Double one stream's pointer advance, as a typo in the asm would.
        let mut doubled = body.clone();
        let add = doubled
            .iter_mut()
            .find(|i| i.mnemonic == "add")
            .expect("a pointer advance");
        let (reg, imm) = add.operands.split_once(',').unwrap();
        let imm = i64::from_str_radix(imm.trim_start_matches("0x"), 16).unwrap();
        add.operands = format!("{reg},{:#x}", 2 * imm);
        let r = std::panic::catch_unwind(|| check(&k.decl, &doubled));
        assert!(r.is_err(), "{name}: a doubled stride must fail");
        // Drop one advance: the stream never moves on.
        let dropped: Vec<Insn> = body
            .iter()
            .filter(|i| i.mnemonic != "add")
            .cloned()
            .collect();
        let r = std::panic::catch_unwind(|| check(&k.decl, &dropped));
        assert!(
            r.is_err(),
            "{name}: a stream that does not move on must fail"
        );
    }
    // A validation kernel's memory unit, its advance doubled.
    let v = KERNELS
        .iter()
        .find(|k| k.decl.name == "avx2_dp_v_load_fma")
        .unwrap();
    let mut insns = code[&v.decl.symbol()].clone();
    let add = insns
        .iter_mut()
        .find(|i| i.mnemonic == "add" && i.operands.starts_with("r10,"))
        .unwrap();
    add.operands = "r10,0x400".into();
    let r = std::panic::catch_unwind(|| check_validation(&v.decl, &insns));
    assert!(r.is_err(), "a validation kernel's doubled stride must fail");
}

#[test]
fn an_alu_op_the_renamer_does_itself_fails() {
    let insn = |m: &str, o: &str| Insn {
        addr: 0,
        mnemonic: m.into(),
        operands: o.into(),
    };
    // Counted: a 32-bit subtract, a 64-bit xor, a register add.
    let c = count(
        &[
            insn("sub", "eax,0x33"),
            insn("xor", "rax,0x22"),
            insn("add", "rdi,rdi"),
        ],
        true,
    );
    assert_eq!((c.adds, c.alus), (1, 2));
    let r = std::panic::catch_unwind(|| count(&[insn("sub", "rax,0x33")], true));
    assert!(r.is_err(), "sub rax, 0x33 must fail");
}

#[test]
fn the_checker_catches_a_wrong_declaration() {
    let code = disassemble();
    let k = KERNELS
        .iter()
        .find(|k| k.decl.name == "avx512_2ld1st")
        .unwrap();
    let body = inner_loop(&code[&k.decl.symbol()]);
    for wrong in [
        Decl {
            loads: k.decl.loads + 1,
            ..k.decl
        },
        Decl {
            stores: k.decl.stores - 1,
            ..k.decl
        },
        Decl {
            declared_width: 32,
            ..k.decl
        },
    ] {
        let r = std::panic::catch_unwind(|| check(&wrong, body));
        assert!(r.is_err(), "a wrong declaration must fail: {wrong:?}");
    }
    let f = KERNELS
        .iter()
        .find(|k| k.decl.name == "avx2_sp_fma_add")
        .unwrap();
    let body = inner_loop(&code[&f.decl.symbol()]);
    let r = std::panic::catch_unwind(|| {
        check(
            &Decl {
                fmas: f.decl.fmas - 1,
                ..f.decl
            },
            body,
        )
    });
    assert!(r.is_err());
    // A madd kernel whose adds lose their vpmaddwd, or read another
    // register, fails; so does one declared as INT32 adds.
    let m = KERNELS
        .iter()
        .find(|k| k.decl.name == "avx2_int16_madd")
        .unwrap();
    let body = inner_loop(&code[&m.decl.symbol()]);
    check(&m.decl, body);
    let unpaired: Vec<Insn> = body
        .iter()
        .filter(|i| i.mnemonic != "vpaddd")
        .cloned()
        .collect();
    assert!(std::panic::catch_unwind(|| check(&m.decl, &unpaired)).is_err());
    let as_adds = Decl {
        madds: 0,
        adds: m.decl.madds,
        ..m.decl
    };
    assert!(std::panic::catch_unwind(|| check(&as_adds, body)).is_err());
    // A prefetching twin declared without its prefetching, or with another
    // distance, and a plain kernel declared as prefetching, all fail.
    for (name, prefetch) in [
        ("avx2_dp_v_2ld1st_fma_pf", 0),
        ("avx2_dp_v_2ld1st_fma_pf", 2048),
        ("sse_sp_v_load_fma", 4096),
    ] {
        let v = KERNELS.iter().find(|k| k.decl.name == name).unwrap();
        let insns = &code[&v.decl.symbol()];
        let wrong = Decl { prefetch, ..v.decl };
        let r = std::panic::catch_unwind(|| check_validation(&wrong, insns));
        assert!(r.is_err(), "a wrong declaration must fail: {wrong:?}");
    }
}
