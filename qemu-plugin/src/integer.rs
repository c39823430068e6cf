//! What one instruction counts for in integer work: its ops, one per lane
//! of a vector and one per instruction of the general registers (by the
//! operand's width), and its compares, counted beside the ops. The
//! definition, written once here and in docs/profile.md:
//! - ops: add, sub, adc, sbb, inc, dec, neg, mul, imul, div, idiv, and, or,
//!   xor, not, andn, shifts and rotates, popcnt, lzcnt, tzcnt, bit scans and
//!   bit tests, BMI's bit-field instructions, crc32, xadd; and the vector
//!   integer arithmetic and logic (adds, subtracts, multiplies, min and max,
//!   abs, averages, sums of differences, horizontal adds, shifts, rotates,
//!   population counts, and, or, xor, ternary logic), one op per lane;
//! - compares: cmp and test; vector compares and test-masks, one per lane;
//! - neither: moves, LEA, pushes and pops, branches, shuffles, packs and
//!   conversions; updates of the stack pointer; zeroing idioms (`xor r, r`,
//!   `sub r, r`, `pxor x, x`) and the all-ones idiom (`pcmpeqd x, x`), which
//!   the core does not execute as arithmetic.
//!
//! The narrow types' multiply-adds (dot products, VPMADDWD, VPMADDUBSW) are
//! counted by `classify` itself, a multiply and an add per input element.

use carmbench_counts::field;
use iced_x86::{Instruction, OpKind, Register};

/// Ops of the general registers, one per instruction.
const SCALAR_OPS: &[&str] = &[
    "add", "sub", "adc", "sbb", "inc", "dec", "neg", "mul", "imul", "div", "idiv", "and", "or",
    "xor", "not", "andn", "shl", "sal", "shr", "sar", "rol", "ror", "rcl", "rcr", "shld", "shrd",
    "shlx", "shrx", "sarx", "rorx", "popcnt", "lzcnt", "tzcnt", "bsf", "bsr", "bt", "bts", "btr",
    "btc", "bextr", "bzhi", "pdep", "pext", "blsi", "blsmsk", "blsr", "adcx", "adox", "mulx",
    "xadd", "crc32",
];

/// Vector ops by stem (the mnemonic without its `v`, suffix included), one
/// per lane of the size the suffix names.
const VECTOR_OPS: &[&str] = &[
    "padd", "psub", "padds", "paddus", "psubs", "psubus", "pmull", "pmulh", "pmulhu", "pmulhrs",
    "pmulud", "pmuld", "pmins", "pminu", "pmaxs", "pmaxu", "pabs", "psign", "pavg", "phadd",
    "phsub", "phadds", "phsubs", "psll", "psrl", "psra", "psllv", "psrlv", "psrav", "prol", "pror",
    "prolv", "prorv", "pshld", "pshrd", "pshldv", "pshrdv", "popcnt", "plzcnt", "pand", "pandn",
    "por", "pxor", "pternlog",
];

/// Vector compares by stem.
const VECTOR_COMPARES: &[&str] = &["pcmpeq", "pcmpgt", "pcmp", "pcmpu", "ptestm", "ptestnm"];

/// The slot of the ops of the general registers on `bytes`-wide operands.
fn scalar_slot(bytes: u32) -> usize {
    match bytes {
        1 => field::SCALAR_INT8_OPS,
        2 => field::SCALAR_INT16_OPS,
        4 => field::SCALAR_INT32_OPS,
        _ => field::SCALAR_INT64_OPS,
    }
}

/// The slot of vector ops on `bytes`-wide lanes.
fn lane_slot(bytes: u32) -> usize {
    match bytes {
        1 => field::INT8_OPS,
        2 => field::INT16_OPS,
        4 => field::INT32_OPS,
        _ => field::INT64_OPS,
    }
}

/// Bytes of the operand the instruction works on: its first (a register,
/// or memory).
fn operand_bytes(i: &Instruction) -> u32 {
    match i.op0_kind() {
        OpKind::Register => i.op0_register().size() as u32,
        OpKind::Memory => i.memory_size().size() as u32,
        _ => 8,
    }
}

/// The registers of an instruction's operands.
fn registers(i: &Instruction) -> Vec<Register> {
    (0..i.op_count())
        .filter(|&k| i.op_kind(k) == OpKind::Register)
        .map(|k| i.op_register(k))
        .collect()
}

/// Every register operand is the same register: `xor eax, eax`, `vpxor
/// x1, x1, x1`.
fn one_register(i: &Instruction) -> bool {
    let r = registers(i);
    r.len() == i.op_count() as usize && r.len() >= 2 && r.iter().all(|x| *x == r[0])
}

/// Bytes of the widest vector register operand (MMX's 8).
fn vector_bytes(i: &Instruction) -> u32 {
    let r = registers(i);
    let size = |x: &Register| {
        if x.is_zmm() || x.is_ymm() || x.is_xmm() || x.is_mm() {
            x.size() as u32
        } else {
            0
        }
    };
    r.iter().map(size).max().unwrap_or(0)
}

/// A vector stem's lane bytes and whether the stem is listed in `stems`:
/// the suffix `b`, `w`, `d`, `q` (unsigned and signed forms alike); the
/// bitwise ones without a suffix work on 64-bit lanes; PSADBW sums bytes.
fn vector_lane(bare: &str, stems: &[&str]) -> Option<u32> {
    if bare == "psadbw" {
        return Some(1);
    }
    if matches!(bare, "pand" | "pandn" | "por" | "pxor") {
        return stems.contains(&bare).then_some(8);
    }
    let (stem, lane) = match bare.as_bytes().last()? {
        b'b' => (&bare[..bare.len() - 1], 1),
        b'w' => (&bare[..bare.len() - 1], 2),
        b'd' => (&bare[..bare.len() - 1], 4),
        b'q' => (&bare[..bare.len() - 1], 8),
        _ => return None,
    };
    // `pminub`: the stem is `pminu`, its lanes bytes.
    stems.contains(&stem).then_some(lane)
}

/// The integer counts of `i` (mnemonic `name`, lower case; `bare` without
/// its `v`): (counter, count) pairs, none for anything else.
pub fn counts(i: &Instruction, name: &str, bare: &str) -> Option<(usize, u64)> {
    if SCALAR_OPS.contains(&name) {
        let rsp = i.op0_kind() == OpKind::Register
            && matches!(
                i.op0_register(),
                Register::RSP | Register::ESP | Register::SP
            );
        let idiom = matches!(name, "xor" | "sub") && one_register(i);
        return (!rsp && !idiom).then(|| (scalar_slot(operand_bytes(i)), 1));
    }
    if matches!(name, "cmp" | "test") {
        return Some((field::INT_COMPARES, 1));
    }
    if bare == "ptest" {
        return Some((field::INT_COMPARES, 1));
    }
    let width = vector_bytes(i);
    if width == 0 {
        return None;
    }
    if let Some(lane) = vector_lane(bare, VECTOR_OPS) {
        let idiom = matches!(
            bare,
            "pxor" | "pxord" | "pxorq" | "psubb" | "psubw" | "psubd" | "psubq"
        ) && one_register(i);
        return (!idiom).then(|| (lane_slot(lane), u64::from(width / lane)));
    }
    if let Some(lane) = vector_lane(bare, VECTOR_COMPARES) {
        let idiom = bare.starts_with("pcmpeq") && one_register(i);
        return (!idiom).then(|| (field::INT_COMPARES, u64::from(width / lane)));
    }
    None
}
