//! What one x86-64 instruction counts for: decoded once, when QEMU
//! translates it, into the flops and bytes it requests each time it runs.
//!
//! Flops are counted as the PMUs' FP-arithmetic events count them: an FMA
//! is 2 per lane; add, sub, mul, div, sqrt, min, max, rcp and rsqrt (and
//! addsub, hadd, hsub) 1 per lane; by precision and vector width. x87
//! arithmetic is counted apart. The narrow types' vector instructions count
//! one op per multiply and one per add, by the width of their inputs
//! (`narrow_ops`). Bytes come from the decoded memory operands
//! (implicit stack accesses included); instructions whose bytes depend on
//! run-time state (rep-prefixed string operations, gathers and scatters,
//! masked moves, xsave and its kin) are left to QEMU's memory callbacks.

use iced_x86::{Decoder, DecoderOptions, Instruction, InstructionInfoFactory, OpAccess, OpKind};

pub use carmbench_counts::field;

/// The counters of one instruction, block or thread, in [`field`] order.
pub type Array = [u64; field::N];

/// One instruction's static counts, and whether its memory traffic must be
/// taken from QEMU's memory callbacks instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    /// What it counts each time it runs (memory left out when `dynamic`).
    pub counts: Array,
    /// Its bytes depend on run-time state.
    pub dynamic: bool,
    /// It calls or returns (how a block that it ends leaves its function).
    pub ends: carmbench_counts::End,
}

/// What an FP mnemonic does.
enum FpOp {
    /// Fused multiply-add family: 2 flops per lane.
    Fma,
    /// One flop per lane.
    Simple,
}

/// The FP operation, precision (true for double) and packedness of a
/// mnemonic written without its `v` prefix, e.g. "fmadd231pd", "addss".
fn fp_kind(m: &str) -> Option<(FpOp, bool, bool)> {
    let (stem, packed, double) = if let Some(s) = m.strip_suffix("pd") {
        (s, true, true)
    } else if let Some(s) = m.strip_suffix("ps") {
        (s, true, false)
    } else if let Some(s) = m.strip_suffix("sd") {
        (s, false, true)
    } else if let Some(s) = m.strip_suffix("ss") {
        (s, false, false)
    } else {
        return None;
    };
    // AVX-512's approximations carry their precision: rcp14, rsqrt28.
    let stem = stem.trim_end_matches(|c: char| c.is_ascii_digit());
    let fma = ["fmadd", "fmsub", "fnmadd", "fnmsub", "fmaddsub", "fmsubadd"];
    if fma.iter().any(|f| stem.starts_with(f)) {
        return Some((FpOp::Fma, double, packed));
    }
    let simple = [
        "add", "sub", "mul", "div", "sqrt", "min", "max", "rcp", "rsqrt", "addsub", "hadd", "hsub",
    ];
    simple
        .contains(&stem)
        .then_some((FpOp::Simple, double, packed))
}

/// The counter and ops of a narrow type's multiply-add of `width` bytes,
/// written without its `v` prefix: one op per multiply and one per add, so
/// a dot product of 4 INT8 pairs into a 32-bit lane is 8 and VPMADDUBSW's
/// pair of products summed into 16 bits is 3. The other vector integer
/// instructions are counted by [`crate::integer`], one op per lane.
fn narrow_ops(m: &str, width: u64) -> Option<(usize, u64)> {
    let (slot, ops) = match m {
        "pdpbusd" | "pdpbusds" => (field::INT8_OPS, 2 * width),
        "pmaddubsw" => (field::INT8_OPS, 3 * width / 2),
        "pdpwssd" | "pdpwssds" => (field::INT16_OPS, width),
        "pmaddwd" => (field::INT16_OPS, 3 * width / 4),
        "dpbf16ps" => (field::BF16_FLOPS, width),
        _ => return None,
    };
    Some((slot, ops))
}

/// Half-precision FP (AVX512_FP16), written without the `v` prefix: its
/// flops, FMAs two per lane.
fn fp16_flops(m: &str, width: u64) -> Option<u64> {
    let (stem, lanes) = if let Some(s) = m.strip_suffix("ph") {
        (s, width / 2)
    } else if let Some(s) = m.strip_suffix("sh") {
        (s, 1)
    } else {
        return None;
    };
    let fma = ["fmadd", "fmsub", "fnmadd", "fnmsub", "fmaddsub", "fmsubadd"];
    if fma.iter().any(|f| stem.starts_with(f)) {
        return Some(2 * lanes);
    }
    [
        "add", "sub", "mul", "div", "sqrt", "min", "max", "rcp", "rsqrt",
    ]
    .contains(&stem)
    .then_some(lanes)
}

/// x87 arithmetic mnemonics.
fn is_x87_arith(m: &str) -> bool {
    matches!(
        m,
        "fadd"
            | "faddp"
            | "fiadd"
            | "fsub"
            | "fsubp"
            | "fisub"
            | "fsubr"
            | "fsubrp"
            | "fisubr"
            | "fmul"
            | "fmulp"
            | "fimul"
            | "fdiv"
            | "fdivp"
            | "fidiv"
            | "fdivr"
            | "fdivrp"
            | "fidivr"
            | "fsqrt"
    )
}

/// Bytes of the widest vector register among the instruction's operands.
fn vector_bytes(i: &Instruction) -> u32 {
    (0..i.op_count())
        .filter(|&k| i.op_kind(k) == OpKind::Register)
        .map(|k| {
            let r = i.op_register(k);
            if r.is_zmm() {
                64
            } else if r.is_ymm() {
                32
            } else if r.is_xmm() {
                16
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0)
}

/// Whether the instruction's memory traffic depends on run-time state.
fn dynamic_memory(i: &Instruction, m: &str) -> bool {
    let string = i.is_string_instruction();
    (string && (i.has_rep_prefix() || i.has_repne_prefix()))
        || i.is_vsib()
        || m.contains("maskmov")
        || m.starts_with("xsave")
        || m.starts_with("xrstor")
        || m.starts_with("fxsave")
        || m.starts_with("fxrstor")
        || (i.op_mask() != iced_x86::Register::None && has_memory_operand(i))
}

fn has_memory_operand(i: &Instruction) -> bool {
    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
}

/// Counts of one decoded instruction.
pub fn classify(i: &Instruction, info: &mut InstructionInfoFactory) -> Insn {
    let mut c: Array = [0; field::N];
    c[field::INSTRUCTIONS] = 1;
    let name = format!("{:?}", i.mnemonic()).to_ascii_lowercase();
    let bare = name.strip_prefix('v').unwrap_or(&name);
    if let Some((op, double, packed)) = fp_kind(bare) {
        let elem = if double { 8 } else { 4 };
        let width = if packed { vector_bytes(i) } else { elem };
        if width >= elem {
            let lanes = u64::from(width / elem);
            let per_lane = match op {
                FpOp::Fma => 2,
                FpOp::Simple => 1,
            };
            let slot = match (double, op) {
                (true, FpOp::Fma) => field::DP_FMA,
                (true, FpOp::Simple) => field::DP_OTHER,
                (false, FpOp::Fma) => field::SP_FMA,
                (false, FpOp::Simple) => field::SP_OTHER,
            };
            c[slot] = lanes * per_lane;
            c[match width {
                64 => field::FP_512,
                32 => field::FP_256,
                16 => field::FP_128,
                _ => field::FP_SCALAR,
            }] = 1;
        }
    } else if let Some((slot, ops)) = narrow_ops(bare, u64::from(vector_bytes(i))) {
        c[slot] = ops;
    } else if let Some((slot, ops)) = crate::integer::counts(i, &name, bare) {
        c[slot] = ops;
    } else if let Some(flops) = fp16_flops(bare, u64::from(vector_bytes(i))) {
        c[field::FP16_FLOPS] = flops;
    } else if is_x87_arith(&name) {
        c[field::X87] = 1;
    }
    let dynamic = dynamic_memory(i, &name);
    if !dynamic {
        for m in info.info(i).used_memory() {
            let bytes = m.memory_size().size() as u64;
            let (load, store) = match m.access() {
                OpAccess::Read | OpAccess::CondRead => (true, false),
                OpAccess::Write | OpAccess::CondWrite => (false, true),
                OpAccess::ReadWrite | OpAccess::ReadCondWrite => (true, true),
                _ => (false, false),
            };
            if load {
                c[field::LOADS] += 1;
                c[field::BYTES_LOADED] += bytes;
            }
            if store {
                c[field::STORES] += 1;
                c[field::BYTES_STORED] += bytes;
            }
        }
    }
    use iced_x86::FlowControl;
    let ends = match i.flow_control() {
        // iced calls it a call: it is not one within the function.
        _ if i.mnemonic() == iced_x86::Mnemonic::Syscall => carmbench_counts::End::Syscall,
        FlowControl::Call | FlowControl::IndirectCall => carmbench_counts::End::Call,
        FlowControl::Return => carmbench_counts::End::Return,
        _ => carmbench_counts::End::Other,
    };
    Insn {
        counts: c,
        dynamic,
        ends,
    }
}

/// Decode the instruction in `bytes` at address `ip` and count it; an
/// instruction that does not decode counts as one instruction and nothing
/// else.
pub fn decode(bytes: &[u8], ip: u64, info: &mut InstructionInfoFactory) -> Insn {
    let mut d = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    let i = d.decode();
    if i.is_invalid() {
        let mut c = [0; field::N];
        c[field::INSTRUCTIONS] = 1;
        return Insn {
            counts: c,
            dynamic: false,
            ends: carmbench_counts::End::Other,
        };
    }
    classify(&i, info)
}

/// Whether `bytes` end before the instruction does, cut by the next page:
/// QEMU stops fetching a block's later instruction at the first read that
/// would cross into the next page (anywhere in it: a prefix, an opcode, a
/// displacement), hands the plugin the bytes read so far, and translates the
/// instruction again, whole, as the next block's first.
pub fn cut_short(bytes: &[u8], ip: u64) -> bool {
    // No x86 instruction is longer than 15 bytes: one that starts further
    // from the page's end than that is never cut by it.
    let crosses = (ip % 4096) + 15 > 4096;
    let mut d = Decoder::with_ip(64, bytes, ip, DecoderOptions::NONE);
    crosses && d.decode().is_invalid() && d.last_error() == iced_x86::DecoderError::NoMoreBytes
}

#[cfg(test)]
mod tests {
    use super::field::*;
    use super::*;

    fn count(bytes: &[u8]) -> Insn {
        decode(bytes, 0x1000, &mut InstructionInfoFactory::new())
    }

    #[test]
    fn a_system_call_ends_its_block_as_one() {
        use carmbench_counts::End;
        assert_eq!(count(&[0x0f, 0x05]).ends, End::Syscall);
        assert_eq!(count(&[0xe8, 0, 0, 0, 0]).ends, End::Call);
        assert_eq!(count(&[0xc3]).ends, End::Return);
        assert_eq!(count(&[0x75, 0xf3]).ends, End::Other);
    }

    #[test]
    fn an_instruction_cut_by_the_next_page_is_told_from_a_whole_one() {
        // vaddsd xmm2, xmm2, xmm1 without its last byte, then whole.
        assert!(cut_short(&[0xc5, 0xeb, 0x58], 0x3ffd));
        assert!(!cut_short(&[0xc5, 0xeb, 0x58, 0xd1], 0x3ffd));
        // An invalid instruction is whole: it is not cut.
        assert!(!cut_short(&[0x0f, 0x0b], 0x3ffe));
        // movsd xmm2, [rip+disp32] at 0x2ff9 ends at 0x3001: QEMU stops
        // before its displacement, 4 bytes short of the page's end.
        assert!(cut_short(&[0xf2, 0x0f, 0x10, 0x15], 0x2ff9));
        assert!(!cut_short(
            &[0xf2, 0x0f, 0x10, 0x15, 0x1f, 0x70, 0x02, 0],
            0x2ff9
        ));
        // The same bytes far from a page's end were not cut by it.
        assert!(!cut_short(&[0xf2, 0x0f, 0x10, 0x15], 0x2f00));
    }

    #[test]
    fn fma_counts_two_flops_per_lane_by_width_and_precision() {
        // vfmadd231pd ymm0, ymm1, ymm2
        let i = count(&[0xc4, 0xe2, 0xf5, 0xb8, 0xc2]);
        assert_eq!((i.counts[DP_FMA], i.counts[FP_256]), (8, 1));
        // vfmadd231sd xmm0, xmm1, [rdi]: 2 flops, an 8-byte load.
        let i = count(&[0xc4, 0xe2, 0xf1, 0xb9, 0x07]);
        assert_eq!((i.counts[DP_FMA], i.counts[FP_SCALAR]), (2, 1));
        assert_eq!((i.counts[LOADS], i.counts[BYTES_LOADED]), (1, 8));
        // vfmadd231ps ymm0, ymm1, ymm2: 8 lanes of single precision.
        let i = count(&[0xc4, 0xe2, 0x75, 0xb8, 0xc2]);
        assert_eq!((i.counts[SP_FMA], i.counts[DP_FMA]), (16, 0));
    }

    #[test]
    fn other_fp_ops_count_one_flop_per_lane() {
        // addsd xmm0, xmm1
        let i = count(&[0xf2, 0x0f, 0x58, 0xc1]);
        assert_eq!((i.counts[DP_OTHER], i.counts[FP_SCALAR]), (1, 1));
        // mulps xmm0, xmm1: 4 single-precision lanes.
        let i = count(&[0x0f, 0x59, 0xc1]);
        assert_eq!((i.counts[SP_OTHER], i.counts[FP_128]), (4, 1));
        // vsqrtpd ymm0, ymm1
        let i = count(&[0xc5, 0xfd, 0x51, 0xc1]);
        assert_eq!(i.counts[DP_OTHER], 4);
        // xorpd, a move or an integer add: no flops.
        for b in [
            &[0x66, 0x0f, 0x57, 0xc1][..],
            &[0x48, 0x01, 0xc8][..],
            &[0xc5, 0xfd, 0x28, 0xc1][..],
        ] {
            let i = count(b);
            assert_eq!(
                i.counts[DP_FMA] + i.counts[DP_OTHER] + i.counts[SP_OTHER],
                0
            );
        }
        // fadd st(0), st(1): x87, apart.
        let i = count(&[0xd8, 0xc1]);
        assert_eq!((i.counts[X87], i.counts[DP_OTHER]), (1, 0));
    }

    /// Assemble one instruction with GNU as and return its bytes.
    fn assemble(text: &str) -> Vec<u8> {
        // A folder of its own: tests run side by side.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("classify-{}-{k}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (src, obj, bin) = (dir.join("a.s"), dir.join("a.o"), dir.join("a.bin"));
        std::fs::write(&src, format!(".intel_syntax noprefix\n{text}\n")).unwrap();
        let ok = std::process::Command::new("as")
            .arg("-o")
            .arg(&obj)
            .arg(&src)
            .status()
            .unwrap()
            .success()
            && std::process::Command::new("objcopy")
                .args(["-O", "binary", "-j", ".text"])
                .arg(&obj)
                .arg(&bin)
                .status()
                .unwrap()
                .success();
        assert!(ok, "as {text}");
        let bytes = std::fs::read(&bin).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        bytes
    }

    #[test]
    fn narrow_types_count_a_multiply_and_an_add_each() {
        for (text, slot, ops) in [
            // 16 dwords x 4 INT8 pairs, a multiply and an add each.
            ("vpdpbusd zmm0, zmm1, zmm2", INT8_OPS, 128),
            ("{vex} vpdpbusd ymm0, ymm1, ymm2", INT8_OPS, 64),
            // 16 words, each 2 products and their sum.
            ("vpmaddubsw ymm0, ymm1, ymm2", INT8_OPS, 48),
            ("pmaddubsw xmm0, xmm1", INT8_OPS, 24),
            ("vpdpwssd zmm0, zmm1, zmm2", INT16_OPS, 64),
            ("vpmaddwd ymm0, ymm1, ymm2", INT16_OPS, 24),
            ("vpaddd ymm0, ymm1, ymm2", INT32_OPS, 8),
            ("vpmulld zmm0, zmm1, zmm2", INT32_OPS, 16),
            ("paddw xmm0, xmm1", INT16_OPS, 8),
            ("vdpbf16ps zmm0, zmm1, zmm2", BF16_FLOPS, 64),
            ("vfmadd231ph zmm0, zmm1, zmm2", FP16_FLOPS, 64),
            ("vaddsh xmm0, xmm1, xmm2", FP16_FLOPS, 1),
        ] {
            let i = count(&assemble(text));
            assert_eq!(i.counts[slot], ops, "{text}");
            let fp = i.counts[DP_FMA] + i.counts[DP_OTHER] + i.counts[SP_FMA] + i.counts[SP_OTHER];
            assert_eq!(fp, 0, "{text}: no FP32/FP64 flops");
        }
        // A 64-bit add or a compare: no narrow type's op.
        for text in ["vpaddq ymm0, ymm1, ymm2", "vpcmpeqb ymm0, ymm1, ymm2"] {
            let i = count(&assemble(text));
            assert_eq!(
                i.counts[INT8_OPS..=INT32_OPS].iter().sum::<u64>(),
                0,
                "{text}"
            );
        }
    }

    /// Every integer counter of one instruction, by name.
    fn integer(text: &str) -> Vec<(&'static str, u64)> {
        let i = count(&assemble(text));
        let names = [
            ("int8", INT8_OPS),
            ("int16", INT16_OPS),
            ("int32", INT32_OPS),
            ("int64", INT64_OPS),
            ("s8", SCALAR_INT8_OPS),
            ("s16", SCALAR_INT16_OPS),
            ("s32", SCALAR_INT32_OPS),
            ("s64", SCALAR_INT64_OPS),
            ("cmp", INT_COMPARES),
        ];
        names
            .iter()
            .filter(|(_, f)| i.counts[*f] > 0)
            .map(|(n, f)| (*n, i.counts[*f]))
            .collect()
    }

    #[test]
    fn integer_ops_count_one_per_instruction_or_lane_and_compares_apart() {
        for (text, want) in [
            // The general registers: one op, by the operand's width.
            ("add rax, rbx", vec![("s64", 1)]),
            ("add ecx, 5", vec![("s32", 1)]),
            ("imul r8w, r9w", vec![("s16", 1)]),
            ("xor al, 0x5a", vec![("s8", 1)]),
            ("shr rdx, 3", vec![("s64", 1)]),
            ("rol eax, cl", vec![("s32", 1)]),
            ("popcnt rax, rbx", vec![("s64", 1)]),
            ("tzcnt ecx, edx", vec![("s32", 1)]),
            ("bt rax, 7", vec![("s64", 1)]),
            ("bextr rax, rbx, rcx", vec![("s64", 1)]),
            ("neg qword ptr [rdi]", vec![("s64", 1)]),
            ("inc byte ptr [rdi+rax]", vec![("s8", 1)]),
            ("div rcx", vec![("s64", 1)]),
            ("adc rax, rdx", vec![("s64", 1)]),
            // Compares, beside.
            ("cmp rax, rbx", vec![("cmp", 1)]),
            ("test cl, 1", vec![("cmp", 1)]),
            // Not ops: moves, LEA, the stack, branches' companions, idioms.
            ("mov rax, rbx", vec![]),
            ("lea rax, [rbx+rcx*8+4]", vec![]),
            ("push rbp", vec![]),
            ("sub rsp, 0x28", vec![]),
            ("and rsp, -16", vec![]),
            ("xor eax, eax", vec![]),
            ("sub r9, r9", vec![]),
            ("movzx eax, byte ptr [rdi]", vec![]),
            // Vectors: one op per lane of the size the suffix names.
            ("vpaddq ymm0, ymm1, ymm2", vec![("int64", 4)]),
            ("vpaddb zmm0, zmm1, zmm2", vec![("int8", 64)]),
            ("paddw xmm0, xmm1", vec![("int16", 8)]),
            ("vpminub ymm0, ymm1, ymm2", vec![("int8", 32)]),
            ("vpsrld ymm0, ymm1, 3", vec![("int32", 8)]),
            ("vpand ymm0, ymm1, ymm2", vec![("int64", 4)]),
            ("vpternlogd zmm0, zmm1, zmm2, 0x96", vec![("int32", 16)]),
            ("vpmuludq ymm0, ymm1, ymm2", vec![("int64", 4)]),
            ("psadbw xmm0, xmm1", vec![("int8", 16)]),
            ("vpcmpeqb ymm0, ymm1, ymm2", vec![("cmp", 32)]),
            ("vpcmpub k1, zmm1, zmm2, 1", vec![("cmp", 64)]),
            ("vpxor xmm0, xmm0, xmm0", vec![]),
            ("vpcmpeqd ymm3, ymm3, ymm3", vec![]),
            ("vpshufb ymm0, ymm1, ymm2", vec![]),
            ("vpunpcklbw ymm0, ymm1, ymm2", vec![]),
            // FP logic is neither integer work nor flops.
            ("xorps xmm0, xmm1", vec![]),
        ] {
            assert_eq!(integer(text), want, "{text}");
        }
    }

    #[test]
    fn bytes_come_from_the_operands_and_dynamic_ones_from_callbacks() {
        // vmovupd ymm0, [rsi]: a 32-byte load.
        let i = count(&[0xc5, 0xfd, 0x10, 0x06]);
        assert_eq!((i.counts[BYTES_LOADED], i.counts[BYTES_STORED]), (32, 0));
        // movsd [rdi], xmm0: an 8-byte store.
        let i = count(&[0xf2, 0x0f, 0x11, 0x07]);
        assert_eq!((i.counts[BYTES_STORED], i.counts[STORES]), (8, 1));
        // add [rdi], rax: read and written.
        let i = count(&[0x48, 0x01, 0x07]);
        assert_eq!((i.counts[BYTES_LOADED], i.counts[BYTES_STORED]), (8, 8));
        // push rbp: the stack write.
        let i = count(&[0x55]);
        assert_eq!(i.counts[BYTES_STORED], 8);
        // lea rax, [rdi+8]: no access.
        let i = count(&[0x48, 0x8d, 0x47, 0x08]);
        assert_eq!(i.counts[LOADS] + i.counts[STORES], 0);
        // rep movsb: left to the callbacks; movsb alone is one byte each way.
        let rep = count(&[0xf3, 0xa4]);
        assert!(rep.dynamic && rep.counts[BYTES_LOADED] == 0);
        let one = count(&[0xa4]);
        assert!(!one.dynamic);
        assert_eq!((one.counts[BYTES_LOADED], one.counts[BYTES_STORED]), (1, 1));
        // vgatherdpd ymm0, [rdi+xmm1*8], ymm2: dynamic.
        assert!(count(&[0xc4, 0xe2, 0xed, 0x92, 0x04, 0xcf]).dynamic);
        // An undecodable byte: one instruction, nothing else.
        let bad = count(&[0x0f, 0xff]);
        assert_eq!(bad.counts.iter().sum::<u64>(), 1);
    }
}
