//! Kernels: the table generated from the declarations in `asm/`, and every
//! figure derived from a declaration (bytes, flops, lanes, streams).
//!
//! One module, one dispatch point: callers pick a kernel by ISA and role
//! with [`find`] (or by name with [`named`]); whether this CPU can run it is
//! [`Kernel::runnable`].

use crate::machine::isa::{self, Isa};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a kernel measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Memory bandwidth (bytes per second).
    Bandwidth,
    /// FP throughput (flops per second).
    Compute,
    /// Memory unit × j and FP unit × k per iteration (j, k at run time):
    /// the validator's variable-intensity kernels.
    Validation,
}

/// Memory access mix of a bandwidth kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mix {
    /// Loads only.
    #[serde(rename = "load")]
    Load,
    /// Stores only.
    #[serde(rename = "store")]
    Store,
    /// Two loads and one store, interleaved (CARM default).
    #[serde(rename = "2ld1st")]
    TwoLdOneSt,
    /// One load and one store (copy).
    #[serde(rename = "1ld1st")]
    OneLdOneSt,
    /// Non-temporal stores (DRAM only).
    #[serde(rename = "nt_store")]
    NtStore,
}

/// FP operation mix of a compute kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Additions.
    Add,
    /// Multiplications.
    Mul,
    /// Additions and multiplications interleaved 1:1.
    #[serde(rename = "addmul")]
    AddMul,
    /// Fused multiply-adds.
    Fma,
    /// FMAs and additions interleaved 1:1 (fills FMA and ADD pipes on Zen 4/5).
    FmaAdd,
    /// Divisions.
    Div,
    /// Dot products accumulated into wider lanes (VNNI, BF16 dot): a
    /// multiply and an add per input element.
    Dot,
    /// Dot products without VNNI: `vpmaddwd` (pairs of 16-bit products
    /// added into 32 bits) then `vpaddd` into the accumulator; the pair
    /// does a dot product's work.
    Madd,
    /// Matrix multiply-accumulate (Arm SMMLA, BFMMLA): a 2×K by K×2 block
    /// product into 2×2 wider lanes, four ops per input element.
    Mmla,
    /// Integer ALU instructions mixed: add, sub, and, or, xor in turn (the
    /// simple operations every integer ALU does).
    Alu,
}

/// Arithmetic precision: of the elements a compute kernel's instructions
/// take in (a dot product's inputs, not its wider accumulators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 64-bit double.
    Dp,
    /// 32-bit single.
    Sp,
    /// 16-bit IEEE half.
    Fp16,
    /// 16-bit bfloat.
    Bf16,
    /// 32-bit integers.
    Int32,
    /// 16-bit integers.
    Int16,
    /// 8-bit integers.
    Int8,
    /// Integer ALU work of any width, scalar (the general registers) and
    /// vector (64-bit lanes): what integer code does beside the narrow types'
    /// dot products.
    Int,
}

macro_rules! names {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            /// Every value.
            pub const ALL: &'static [$t] = &[$(<$t>::$v),*];
            /// Name used on the command line and in results.
            pub fn name(self) -> &'static str { match self { $(<$t>::$v => $s),* } }
            /// Parse a name, or list the known ones.
            pub fn parse(s: &str) -> Result<Self, String> {
                Self::ALL.iter().copied().find(|x| x.name().eq_ignore_ascii_case(s)).ok_or_else(|| {
                    format!("unknown {} '{s}'; known: {}", stringify!($t).to_lowercase(),
                        Self::ALL.iter().map(|x| x.name()).collect::<Vec<_>>().join(", "))
                })
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.pad(self.name()) }
        }
        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> { Self::parse(s.trim()) }
        }
    };
}
names!(Mix { Load => "load", Store => "store", TwoLdOneSt => "2ld1st", OneLdOneSt => "1ld1st", NtStore => "nt_store" });
names!(Op { Add => "add", Mul => "mul", AddMul => "addmul", Fma => "fma", FmaAdd => "fma_add", Div => "div", Dot => "dot", Madd => "madd", Mmla => "mmla", Alu => "alu" });
names!(Precision { Dp => "dp", Sp => "sp", Fp16 => "fp16", Bf16 => "bf16", Int32 => "int32", Int16 => "int16", Int8 => "int8", Int => "int" });

impl Mix {
    /// Loads and stores in the proportion its kernels declare them (every
    /// bandwidth kernel of the mix is checked against it), and whether its
    /// stores bypass the caches (non-temporal): what a level below L1 moves
    /// for each byte requested follows from them ([`Mix::moved_per_requested`]).
    pub fn accesses(self) -> (u32, u32, bool) {
        match self {
            Mix::Load => (1, 0, false),
            Mix::Store => (0, 1, false),
            Mix::TwoLdOneSt => (2, 1, false),
            Mix::OneLdOneSt => (1, 1, false),
            Mix::NtStore => (0, 1, true),
        }
    }

    /// The bytes a level below L1 moves per byte the mix's kernel
    /// requests while its buffer sits at that level, under the rules the
    /// cache simulation of `profile --traffic` applies (write-allocate,
    /// write-back): each line loaded or stored is read from the level,
    /// each line stored written back to it; into an exclusive L3 (a victim
    /// cache) every line L2 takes from it goes back. Non-temporal stores
    /// move their bytes once. So a dot (the bytes a level moved) and its
    /// roof count the same bytes.
    pub fn moved_per_requested(self, below_l1: bool, exclusive: bool) -> f64 {
        let (loads, stores, nt) = self.accesses();
        let (loads, stores) = (f64::from(loads), f64::from(stores));
        if !below_l1 || nt {
            return 1.0;
        }
        let read = loads + stores;
        let written = if exclusive { read } else { stores };
        (read + written) / (loads + stores)
    }
}

impl Op {
    /// The FP ops measured in double and single precision (all but the
    /// narrow types' dot product).
    pub const FP: &'static [Op] = &[Op::Add, Op::Mul, Op::AddMul, Op::Fma, Op::FmaAdd, Op::Div];
}

impl Precision {
    /// Double and single: the precisions of every FP op and of validation.
    pub const FP: &'static [Precision] = &[Precision::Dp, Precision::Sp];

    /// Bytes of one element.
    pub fn bytes(self) -> u32 {
        match self {
            Precision::Dp | Precision::Int => 8,
            Precision::Sp | Precision::Int32 => 4,
            Precision::Fp16 | Precision::Bf16 | Precision::Int16 => 2,
            Precision::Int8 => 1,
        }
    }

    /// Integer arithmetic: its roofs count operations, not flops.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Precision::Int32 | Precision::Int16 | Precision::Int8 | Precision::Int
        )
    }

    /// The unit of its work: "op" for integers, "flop" else.
    pub fn unit(self) -> &'static str {
        if self.is_integer() { "op" } else { "flop" }
    }

    /// The ops a roof of this precision is measured with: the plan's FP ops
    /// for double and single; the instructions the narrow types are used
    /// for (dot products, with and without VNNI, matrix multiply-accumulates,
    /// half-precision FMAs, integer adds and multiplies).
    pub fn own_ops(self) -> Option<&'static [Op]> {
        match self {
            Precision::Dp | Precision::Sp => None,
            Precision::Fp16 => Some(&[Op::Fma]),
            Precision::Int16 => Some(&[Op::Dot, Op::Madd]),
            Precision::Bf16 | Precision::Int8 => Some(&[Op::Dot, Op::Mmla]),
            Precision::Int32 => Some(&[Op::Add, Op::Mul]),
            Precision::Int => Some(&[Op::Add, Op::Alu]),
        }
    }
}

/// A kernel's declaration: its counts per inner-loop iteration, exactly as
/// written on its `# @kernel` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decl {
    /// Name; the symbol is `carm_<name>`.
    pub name: &'static str,
    /// Source file, relative to the crate.
    pub file: &'static str,
    /// Bandwidth or compute.
    pub kind: Kind,
    /// Access mix (bandwidth kernels).
    pub mix: Option<Mix>,
    /// FP op mix (compute kernels).
    pub op: Option<Op>,
    /// ISA family.
    pub isa: Isa,
    /// Precision (compute kernels).
    pub precision: Option<Precision>,
    /// Bytes per access / per vector register as declared; 0 for SVE's
    /// `width=vl`, the vector length of the CPU ([`Decl::width`]).
    pub declared_width: u32,
    /// Loads per iteration.
    pub loads: u32,
    /// Stores per iteration.
    pub stores: u32,
    /// FP additions per iteration.
    pub adds: u32,
    /// FP multiplications per iteration.
    pub muls: u32,
    /// FMAs per iteration.
    pub fmas: u32,
    /// FP divisions per iteration.
    pub divs: u32,
    /// Dot-product instructions per iteration (a multiply and an add per
    /// input element).
    pub dots: u32,
    /// `vpmaddwd` + `vpaddd` pairs per iteration (a dot product's work each).
    pub madds: u32,
    /// Matrix multiply-accumulate instructions per iteration (four ops per
    /// input element).
    pub mmlas: u32,
    /// Integer ALU instructions per iteration other than adds (sub, and,
    /// or, xor: one op per lane each).
    pub alus: u32,
    /// A CPU feature the kernel needs beyond its ISA family's (VNNI, BF16).
    pub needs: Option<&'static str>,
    /// Validation kernels: how far ahead, in bytes, each memory unit
    /// prefetches the lines it holds (0: no prefetching).
    pub prefetch: u32,
    /// Paced bandwidth kernels: vector integer adds per iteration beside the
    /// accesses, on registers no access uses (0: none). See [`Role::Paced`].
    pub pace: u32,
}

/// Entry point of every kernel (see `asm/<arch>/common.S`): streams A, B, C,
/// iterations per pass, passes, and for validation kernels `j << 32 | k`.
pub type Entry = unsafe extern "C" fn(*const u8, *const u8, *mut u8, u64, u64, u64);

/// Repeat counts of a validation kernel's memory unit (j) and FP unit (k).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// Memory units per iteration.
    pub j: u32,
    /// FP units per iteration.
    pub k: u32,
}

impl Shape {
    /// The shape of every non-validation kernel.
    pub const ONE: Shape = Shape { j: 1, k: 1 };
    /// The kernel's sixth argument.
    pub fn arg(self) -> u64 {
        (u64::from(self.j) << 32) | u64::from(self.k)
    }
}

/// A kernel: declaration and code.
#[derive(Clone, Copy)]
pub struct Kernel {
    /// Counts and identity.
    pub decl: Decl,
    /// Code.
    pub entry: Entry,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.decl.fmt(f)
    }
}

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

impl Decl {
    /// Symbol of the kernel.
    pub fn symbol(&self) -> String {
        format!("carm_{}", self.name)
    }
    /// Bytes per access / per vector register: the declared width, or the
    /// SVE vector length this CPU reports.
    pub fn width(&self) -> u32 {
        if self.declared_width == 0 {
            crate::arch::sve_bytes()
        } else {
            self.declared_width
        }
    }
    /// Elements per vector (1 for scalar).
    pub fn lanes(&self) -> u32 {
        self.precision
            .map_or(1, |p| (self.width() / p.bytes()).max(1))
    }
    /// Bytes requested per iteration (loads and stores × width).
    pub fn bytes_per_iter(&self) -> u64 {
        u64::from(self.loads + self.stores) * u64::from(self.width())
    }
    /// Bytes loaded per iteration.
    pub fn load_bytes_per_iter(&self) -> u64 {
        u64::from(self.loads) * u64::from(self.width())
    }
    /// Bytes stored per iteration.
    pub fn store_bytes_per_iter(&self) -> u64 {
        u64::from(self.stores) * u64::from(self.width())
    }
    /// Arithmetic instructions per iteration.
    pub fn fp_instructions(&self) -> u32 {
        self.adds
            + self.muls
            + self.fmas
            + self.divs
            + self.dots
            + 2 * self.madds
            + self.mmlas
            + self.alus
    }
    /// Operations per iteration: flops, or integer ops (an FMA is two, a
    /// dot product two per input element, a matrix multiply-accumulate
    /// four).
    pub fn flops_per_iter(&self) -> u64 {
        u64::from(
            self.adds
                + self.muls
                + self.divs
                + self.alus
                + 2 * (self.fmas + self.dots + self.madds)
                + 4 * self.mmlas,
        ) * u64::from(self.lanes())
    }
    /// Bytes per iteration with a shape (j memory units).
    pub fn shaped_bytes(&self, s: Shape) -> u64 {
        self.bytes_per_iter() * u64::from(s.j)
    }
    /// Flops per iteration with a shape (k FP units).
    pub fn shaped_flops(&self, s: Shape) -> u64 {
        self.flops_per_iter() * u64::from(s.k)
    }
    /// Arithmetic intensity of a validation kernel with a shape, flop/byte.
    pub fn intensity(&self, s: Shape) -> f64 {
        self.shaped_flops(s) as f64 / self.shaped_bytes(s) as f64
    }
    /// Load streams the kernel reads (A, then B).
    pub fn load_streams(&self) -> u32 {
        match self.mix {
            Some(Mix::TwoLdOneSt) => 2,
            Some(Mix::Load | Mix::OneLdOneSt) => 1,
            _ => 0,
        }
    }
    /// CPU features the kernel needs.
    pub fn required_features(&self) -> Vec<&'static str> {
        let mut f = self.isa.required_features().to_vec();
        // FMA is part of the narrow types' own extensions (AVX512_FP16).
        if self.fmas > 0 && matches!(self.precision, Some(Precision::Dp | Precision::Sp)) {
            f.extend(crate::arch::FMA_FEATURE);
        }
        f.extend(self.needs);
        f
    }
}

impl Kernel {
    /// Whether this CPU can run the kernel.
    pub fn runnable(&self) -> bool {
        self.decl
            .required_features()
            .iter()
            .all(|f| isa::has_feature(f))
    }
}

/// What a kernel is wanted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Measuring the bandwidth of an access mix.
    Bandwidth(Mix),
    /// The same accesses with vector integer work beside them: on some
    /// cores such a stream pulls more from DRAM than the bare one, which a
    /// DRAM roof records beside it (`roofs/assemble.rs`: `with_paced`).
    Paced(Mix),
    /// Measuring the FP throughput of an op.
    Compute(Op, Precision),
    /// A validation kernel of a mix and op; `prefetching` picks its twin
    /// whose memory units prefetch their lines ahead (`asm/<arch>/validation.S`).
    Validation {
        /// Access mix of the memory unit.
        mix: Mix,
        /// FP op of the FP unit.
        op: Op,
        /// Precision.
        precision: Precision,
        /// The prefetching twin.
        prefetching: bool,
    },
}

impl Role {
    /// Whether a declaration plays this role.
    fn fits(self, d: &Decl) -> bool {
        match self {
            Role::Bandwidth(mix) => d.kind == Kind::Bandwidth && d.mix == Some(mix) && d.pace == 0,
            Role::Paced(mix) => d.kind == Kind::Bandwidth && d.mix == Some(mix) && d.pace > 0,
            Role::Compute(op, p) => {
                d.kind == Kind::Compute && d.op == Some(op) && d.precision == Some(p)
            }
            Role::Validation {
                mix,
                op,
                precision,
                prefetching,
            } => {
                d.kind == Kind::Validation
                    && d.mix == Some(mix)
                    && d.op == Some(op)
                    && d.precision == Some(precision)
                    && (d.prefetch > 0) == prefetching
            }
        }
    }
}

/// The kernel of `isa` for `role`.
pub fn find(isa: Isa, role: Role) -> Option<&'static Kernel> {
    KERNELS
        .iter()
        .find(|k| k.decl.isa == isa && role.fits(&k.decl))
}

/// The kernel called `name`.
pub fn named(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.decl.name == name)
}

/// The kernel called `name`, if this CPU runs it; else why not, and the
/// names known.
pub fn runnable(name: &str) -> crate::error::Result<&'static Kernel> {
    use crate::error::Error;
    let k = named(name).ok_or_else(|| {
        Error::input(format!(
            "unknown kernel '{name}'; known: {}",
            KERNELS
                .iter()
                .map(|k| k.decl.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    if !k.runnable() {
        return Err(Error::input(format!(
            "this CPU cannot run kernel '{name}' (needs {})",
            k.decl.required_features().join(", ")
        )));
    }
    Ok(k)
}

#[cfg(test)]
mod tests;
