//! The plugin's output file, defined once: the QEMU plugin (GPL, its own
//! crate) writes it and `carmbench profile --counts emulate` reads it, both
//! through these types, so the two sides cannot drift apart. And how every
//! process a command starts is launched under the plugin ([`follow`]),
//! shared by carmbench and its preload library; and the rest of the
//! contract between them, the plugin and the regions library
//! ([`protocol`]). MIT, like carmbench, so any of them may use it.

pub mod follow;
pub mod protocol;

use serde::{Deserialize, Serialize};

/// The version of the layout below: 2 has one file per process, 3 the
/// counts of each piece of code ([`Site`]), 4 the narrow types' ops and the
/// simulated caches' traffic, 5 every integer op (scalar by width, vector
/// by lane) and the compares beside them, 6 the run's windows in time
/// ([`Timeline`]), 7 whether it read its standard input.
pub const VERSION: u32 = 7;

/// The counter table, written once: each counter's field in [`Counts`],
/// its index in the plugin's arrays ([`field`]) and its doc.
macro_rules! counters {
    ($($(#[doc = $doc:literal])* $name:ident = $index:ident,)*) => {
        /// The counters by index: the plugin counts into arrays, in this order.
        pub mod field {
            #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
            enum Index { $($index,)* N }
            $($(#[doc = $doc])* pub const $index: usize = Index::$index as usize;)*
            /// How many counters.
            pub const N: usize = Index::N as usize;
        }

        /// The counters, by name, as the file holds them (those at zero left
        /// out: a file holds thousands of them, one per block of code).
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct Counts {
            $($(#[doc = $doc])* #[serde(skip_serializing_if = "is_zero")] pub $name: u64,)*
        }

        impl Counts {
            /// The counters of an array in [`field`] order.
            pub fn from_array(c: &[u64; field::N]) -> Counts {
                Counts { $($name: c[field::$index],)* }
            }

            /// The counters as an array in [`field`] order.
            pub fn to_array(&self) -> [u64; field::N] {
                let mut a = [0; field::N];
                $(a[field::$index] = self.$name;)*
                a
            }
        }
    };
}

counters! {
    /// Instructions executed (a rep-prefixed one once per iteration).
    instructions = INSTRUCTIONS,
    /// Double-precision flops done by FMA instructions.
    dp_fma_flops = DP_FMA,
    /// Double-precision flops of other FP instructions.
    dp_other_flops = DP_OTHER,
    /// Single-precision flops done by FMA instructions.
    sp_fma_flops = SP_FMA,
    /// Single-precision flops of other FP instructions.
    sp_other_flops = SP_OTHER,
    /// FP arithmetic instructions on one element.
    fp_scalar = FP_SCALAR,
    /// FP arithmetic instructions on 128-bit vectors.
    fp_128 = FP_128,
    /// On 256-bit vectors.
    fp_256 = FP_256,
    /// On 512-bit vectors.
    fp_512 = FP_512,
    /// x87 arithmetic instructions.
    x87 = X87,
    /// Memory reads.
    loads = LOADS,
    /// Memory writes.
    stores = STORES,
    /// Bytes read.
    bytes_loaded = BYTES_LOADED,
    /// Bytes written.
    bytes_stored = BYTES_STORED,
    /// Ops of vector integer instructions on 8-bit lanes, one per lane (a
    /// dot product's multiply and add each: VPDPBUSD, VPMADDUBSW; VPADDB,
    /// VPMINUB, ...).
    int8_ops = INT8_OPS,
    /// On 16-bit lanes (VPDPWSSD, VPMADDWD, VPMULLW, VPADDW, ...).
    int16_ops = INT16_OPS,
    /// On 32-bit lanes (VPADDD, VPSUBD, VPMULLD, VPSLLD, ...).
    int32_ops = INT32_OPS,
    /// On 64-bit lanes, and the bitwise ones without a lane size (VPADDQ,
    /// VPAND, VPXOR, ...).
    int64_ops = INT64_OPS,
    /// Integer ops of the general registers on 8-bit operands (add, sub,
    /// and, shifts, ...: the definition is in docs/profile.md).
    scalar_int8_ops = SCALAR_INT8_OPS,
    /// On 16-bit operands.
    scalar_int16_ops = SCALAR_INT16_OPS,
    /// On 32-bit operands.
    scalar_int32_ops = SCALAR_INT32_OPS,
    /// On 64-bit operands.
    scalar_int64_ops = SCALAR_INT64_OPS,
    /// Integer compares and tests (CMP, TEST, PCMPEQ, VPCMP, VPTESTM: one per
    /// lane), counted beside the ops, not among them.
    int_compares = INT_COMPARES,
    /// BF16 flops (VDPBF16PS: a multiply and an add per BF16 pair).
    bf16_flops = BF16_FLOPS,
    /// Half-precision flops (AVX512_FP16: an FMA two per lane).
    fp16_flops = FP16_FLOPS,
    /// Bytes L2 gave L1 (simulated caches, `profile --traffic`).
    l2_read = L2_READ,
    /// Bytes L1 wrote back to L2.
    l2_write = L2_WRITE,
    /// Bytes L3 (or DRAM through it) gave L2.
    l3_read = L3_READ,
    /// Bytes L2 wrote to L3.
    l3_write = L3_WRITE,
    /// Bytes read from DRAM.
    dram_read = DRAM_READ,
    /// Bytes written back to DRAM.
    dram_write = DRAM_WRITE,
    /// Line accesses that hit in L1.
    l1_hits = L1_HITS,
    /// In L2.
    l2_hits = L2_HITS,
    /// In L3.
    l3_hits = L3_HITS,
}

/// The counters the simulated caches fill, in the order of
/// `protocol::Moved`'s lines then hits.
pub const TRAFFIC: [usize; 9] = [
    field::L2_READ,
    field::L2_WRITE,
    field::L3_READ,
    field::L3_WRITE,
    field::DRAM_READ,
    field::DRAM_WRITE,
    field::L1_HITS,
    field::L2_HITS,
    field::L3_HITS,
];

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl Counts {
    /// W: flops (an FMA counts two), x87's one an instruction among them
    /// (the PMUs' FP events leave x87 out; its work is the program's all
    /// the same).
    pub fn flops(&self) -> u64 {
        self.dp_flops() + self.sp_fma_flops + self.sp_other_flops
    }

    /// Double-precision flops, x87's (wider, and placed under the double
    /// roofs, the nearest there are) among them.
    pub fn dp_flops(&self) -> u64 {
        self.dp_fma_flops + self.dp_other_flops + self.x87
    }

    /// Flops done by FMA instructions.
    pub fn fma_flops(&self) -> u64 {
        self.dp_fma_flops + self.sp_fma_flops
    }

    /// Integer ops of vector instructions on narrow lanes (8, 16 and 32
    /// bits): the narrow types' work.
    pub fn narrow_ops(&self) -> u64 {
        self.int8_ops + self.int16_ops + self.int32_ops
    }

    /// Integer ops of the general registers, every width.
    pub fn scalar_int_ops(&self) -> u64 {
        self.scalar_int8_ops + self.scalar_int16_ops + self.scalar_int32_ops + self.scalar_int64_ops
    }

    /// Every integer op: vector lanes of every width and the general
    /// registers'.
    pub fn integer_ops(&self) -> u64 {
        self.narrow_ops() + self.int64_ops + self.scalar_int_ops()
    }

    /// Q: bytes requested, loaded and stored.
    pub fn bytes(&self) -> u64 {
        self.bytes_loaded + self.bytes_stored
    }
}

impl std::ops::AddAssign<&Counts> for Counts {
    fn add_assign(&mut self, o: &Counts) {
        let (mut a, b) = (self.to_array(), o.to_array());
        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        *self = Counts::from_array(&a);
    }
}

/// A part taken out of a whole that holds it (never below zero).
impl std::ops::SubAssign<&Counts> for Counts {
    fn sub_assign(&mut self, o: &Counts) {
        let (mut a, b) = (self.to_array(), o.to_array());
        a.iter_mut()
            .zip(b)
            .for_each(|(x, y)| *x = x.saturating_sub(y));
        *self = Counts::from_array(&a);
    }
}

/// A region's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionCounts {
    /// Its name.
    pub name: String,
    /// Calls over all threads.
    pub calls: u64,
    /// Its counts, summed over calls and threads.
    pub counts: Counts,
}

/// What the plugin writes for one process, at its exit or when it execs
/// another program (a file per process in the folder it is given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// The layout's version: [`VERSION`].
    pub version: u32,
    /// The process.
    pub pid: u32,
    /// Its parent when it started.
    pub parent: u32,
    /// The program it ran (empty when not known).
    pub program: String,
    /// Programs it started that were not followed: they ran natively,
    /// uncounted (a name, or empty when it started one by a way the preload
    /// library does not see: a raw system call, a static binary's exec).
    pub skipped: Vec<String>,
    /// Threads the program ran.
    pub threads: usize,
    /// The whole program.
    pub total: Counts,
    /// Each region marked with the regions library.
    pub regions: Vec<RegionCounts>,
    /// The files code ran from, for [`Site::module`].
    #[serde(default)]
    pub modules: Vec<String>,
    /// The counts of each block of code that ran: they add up to `total`.
    #[serde(default)]
    pub sites: Vec<Site>,
    /// Written as the process began to wait (a sleep, a read): it was
    /// still running, and was ended by a signal before it wrote again.
    #[serde(default)]
    pub partial: bool,
    /// The process ended by running another program (an exec): it
    /// launched, and its own work was only that.
    #[serde(default)]
    pub replaced: bool,
    /// It read its standard input (descriptor 0): an input that cannot be
    /// given to the emulated run again (a terminal's) mattered only then.
    #[serde(default)]
    pub read_stdin: bool,
    /// The control flow between the sites, with loops asked for: a block
    /// split where another starts (a loop's header reached by falling
    /// through) is two sites and one edge.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<Edge>,
    /// The run in windows of time, when asked for
    /// ([`protocol::TIMELINE_ENV`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// The process's run in windows of time, in order (`profile --timeline`):
/// their counts add up to [`Output::total`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    /// When the plugin began counting: the first window's start,
    /// nanoseconds of the host's `CLOCK_MONOTONIC`.
    pub start_ns: u64,
    /// The windows, each from the one before's end.
    pub windows: Vec<Window>,
}

/// What ran in one window of the emulated run's time, over its threads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Its end, nanoseconds of the host's `CLOCK_MONOTONIC`.
    pub end_ns: u64,
    /// What it counted.
    pub counts: Counts,
    /// The instructions it ran at each place: (index in [`Output::sites`],
    /// instructions), for the functions that ran in it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<(u32, u64)>,
}

/// The counts of the code at one place: a translated block, which ends at
/// every branch, call and return, so never spans two functions of compiled
/// code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Site {
    /// Index in [`Output::modules`]; [`Site::ANONYMOUS`] for code in no
    /// file (generated at run time), whose `offset` is its address.
    pub module: u32,
    /// Offset of the block's first instruction in the module's file.
    pub offset: u64,
    /// What the block did, summed over its runs and threads.
    pub counts: Counts,
    /// How often it ran (with loops asked for: [`protocol::LOOPS_ENV`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub runs: u64,
    /// Its bytes of code (with loops asked for).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub size: u64,
    /// How its last instruction leaves it: a call or a return is not a
    /// transfer within its function.
    #[serde(default, skip_serializing_if = "End::is_other")]
    pub ends: End,
}

/// How a block's last instruction leaves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// A jump, a branch, or no transfer.
    #[default]
    Other,
    /// A call: the function goes on at the next instruction.
    Call,
    /// A return.
    Return,
    /// A system call: the function goes on at the next instruction, but
    /// after `rt_sigreturn` (a signal handler's end) wherever the signal
    /// found the thread, which is no transfer into that place.
    Syscall,
}

impl End {
    fn is_other(&self) -> bool {
        *self == End::Other
    }
}

/// One block followed another this often (with loops asked for): the
/// control flow between the places of [`Output::sites`], the transfer out
/// of a block from its last instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// The block that ran first: its module and offset, as a site's.
    pub from: (u32, u64),
    /// The block that ran next.
    pub to: (u32, u64),
    /// How often, over every thread.
    pub count: u64,
}

impl Site {
    /// [`Site::module`] of code that is in no file.
    pub const ANONYMOUS: u32 = u32::MAX;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counter_has_its_own_index_and_round_trips() {
        let mut a = [0u64; field::N];
        for (i, x) in a.iter_mut().enumerate() {
            *x = 1 << i;
        }
        let c = Counts::from_array(&a);
        let text = serde_json::to_string(&c).unwrap();
        // Each counter appears once, with its own bit: no index used twice.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sum: u64 = v
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_u64().unwrap())
            .sum();
        assert_eq!(sum, (1 << field::N) - 1);
        assert_eq!(serde_json::from_str::<Counts>(&text).unwrap(), c);
        assert_eq!(c.to_array(), a);
        let mut twice = c;
        twice += &c;
        assert_eq!(twice.to_array(), a.map(|x| 2 * x));
        assert_eq!(c.flops(), 2 + 4 + 8 + 16 + (1 << field::X87));
        assert_eq!(c.bytes(), (1 << 12) + (1 << 13));
    }
}
