//! The plugin's output file, defined once: the QEMU plugin (GPL, its own
//! crate) writes it and `carmbench profile --counts emulate` reads it, both
//! through these types, so the two sides cannot drift apart. And how every
//! process a command starts is launched under the plugin ([`follow`]),
//! shared by carmbench and its preload library. MIT, like carmbench, so
//! any of them may use it.

pub mod follow;

use serde::{Deserialize, Serialize};

/// The version of the layout below: 2 has one file per process, 3 the
/// counts of each piece of code ([`Site`]), 4 the narrow types' ops and the
/// simulated caches' traffic.
pub const VERSION: u32 = 4;

/// The environment variable that asks the plugin to simulate the data
/// caches: the plugin's `cache=` spec (`LINE:L1SIZE/WAYS:L2SIZE/WAYS:
/// L3SIZE/WAYS:excl|nine:SAMPLE`). Set for QEMU, it reaches every program
/// the command starts (QEMU hands its environment to the guest).
pub const CACHE_ENV: &str = "CARMBENCH_CACHE";

/// The counters by index: the plugin counts into arrays, in this order.
pub mod field {
    /// Instructions executed (a rep-prefixed one once per iteration).
    pub const INSTRUCTIONS: usize = 0;
    /// Double-precision flops done by FMA instructions.
    pub const DP_FMA: usize = 1;
    /// Double-precision flops of other instructions.
    pub const DP_OTHER: usize = 2;
    /// Single-precision flops done by FMA instructions.
    pub const SP_FMA: usize = 3;
    /// Single-precision flops of other instructions.
    pub const SP_OTHER: usize = 4;
    /// FP arithmetic instructions on one element.
    pub const FP_SCALAR: usize = 5;
    /// FP arithmetic instructions on 128-bit vectors.
    pub const FP_128: usize = 6;
    /// On 256-bit vectors.
    pub const FP_256: usize = 7;
    /// On 512-bit vectors.
    pub const FP_512: usize = 8;
    /// x87 arithmetic instructions.
    pub const X87: usize = 9;
    /// Memory reads.
    pub const LOADS: usize = 10;
    /// Memory writes.
    pub const STORES: usize = 11;
    /// Bytes read.
    pub const BYTES_LOADED: usize = 12;
    /// Bytes written.
    pub const BYTES_STORED: usize = 13;
    /// Ops of vector instructions on 8-bit integers (a multiply and an add
    /// each: VPDPBUSD, VPMADDUBSW; VPADDB).
    pub const INT8_OPS: usize = 14;
    /// On 16-bit integers (VPDPWSSD, VPMADDWD, VPMULLW, VPADDW).
    pub const INT16_OPS: usize = 15;
    /// On 32-bit integers (VPADDD, VPSUBD, VPMULLD).
    pub const INT32_OPS: usize = 16;
    /// BF16 flops (VDPBF16PS: a multiply and an add per BF16 pair).
    pub const BF16_FLOPS: usize = 17;
    /// Half-precision flops (AVX512_FP16: an FMA two per lane).
    pub const FP16_FLOPS: usize = 18;
    /// Bytes L2 gave L1 (simulated caches, `profile --traffic`).
    pub const L2_READ: usize = 19;
    /// Bytes L1 wrote back to L2.
    pub const L2_WRITE: usize = 20;
    /// Bytes L3 (or DRAM through it) gave L2.
    pub const L3_READ: usize = 21;
    /// Bytes L2 wrote to L3.
    pub const L3_WRITE: usize = 22;
    /// Bytes read from DRAM.
    pub const DRAM_READ: usize = 23;
    /// Bytes written back to DRAM.
    pub const DRAM_WRITE: usize = 24;
    /// Line accesses that hit in L1.
    pub const L1_HITS: usize = 25;
    /// In L2.
    pub const L2_HITS: usize = 26;
    /// In L3.
    pub const L3_HITS: usize = 27;
    /// How many counters.
    pub const N: usize = 28;
}

/// The counters, by name, as the file holds them (those at zero left out:
/// a file holds thousands of them, one per block of code).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Counts {
    /// Instructions executed (a rep-prefixed one once per iteration).
    #[serde(skip_serializing_if = "is_zero")]
    pub instructions: u64,
    /// Double-precision flops of FMA instructions.
    #[serde(skip_serializing_if = "is_zero")]
    pub dp_fma_flops: u64,
    /// Double-precision flops of other FP instructions.
    #[serde(skip_serializing_if = "is_zero")]
    pub dp_other_flops: u64,
    /// Single-precision flops of FMA instructions.
    #[serde(skip_serializing_if = "is_zero")]
    pub sp_fma_flops: u64,
    /// Single-precision flops of other FP instructions.
    #[serde(skip_serializing_if = "is_zero")]
    pub sp_other_flops: u64,
    /// FP arithmetic instructions on one element.
    #[serde(skip_serializing_if = "is_zero")]
    pub fp_scalar: u64,
    /// On 128-bit vectors.
    #[serde(skip_serializing_if = "is_zero")]
    pub fp_128: u64,
    /// On 256-bit vectors.
    #[serde(skip_serializing_if = "is_zero")]
    pub fp_256: u64,
    /// On 512-bit vectors.
    #[serde(skip_serializing_if = "is_zero")]
    pub fp_512: u64,
    /// x87 arithmetic instructions.
    #[serde(skip_serializing_if = "is_zero")]
    pub x87: u64,
    /// Memory reads.
    #[serde(skip_serializing_if = "is_zero")]
    pub loads: u64,
    /// Memory writes.
    #[serde(skip_serializing_if = "is_zero")]
    pub stores: u64,
    /// Bytes read.
    #[serde(skip_serializing_if = "is_zero")]
    pub bytes_loaded: u64,
    /// Bytes written.
    #[serde(skip_serializing_if = "is_zero")]
    pub bytes_stored: u64,
    /// Ops of vector instructions on 8-bit integers.
    #[serde(skip_serializing_if = "is_zero")]
    pub int8_ops: u64,
    /// On 16-bit integers.
    #[serde(skip_serializing_if = "is_zero")]
    pub int16_ops: u64,
    /// On 32-bit integers.
    #[serde(skip_serializing_if = "is_zero")]
    pub int32_ops: u64,
    /// BF16 flops.
    #[serde(skip_serializing_if = "is_zero")]
    pub bf16_flops: u64,
    /// Half-precision flops.
    #[serde(skip_serializing_if = "is_zero")]
    pub fp16_flops: u64,
    /// Simulated caches: bytes L2 gave L1.
    #[serde(skip_serializing_if = "is_zero")]
    pub l2_read: u64,
    /// Bytes L1 wrote back to L2.
    #[serde(skip_serializing_if = "is_zero")]
    pub l2_write: u64,
    /// Bytes L3 gave L2.
    #[serde(skip_serializing_if = "is_zero")]
    pub l3_read: u64,
    /// Bytes L2 wrote to L3.
    #[serde(skip_serializing_if = "is_zero")]
    pub l3_write: u64,
    /// Bytes read from DRAM.
    #[serde(skip_serializing_if = "is_zero")]
    pub dram_read: u64,
    /// Bytes written back to DRAM.
    #[serde(skip_serializing_if = "is_zero")]
    pub dram_write: u64,
    /// Line accesses that hit in L1.
    #[serde(skip_serializing_if = "is_zero")]
    pub l1_hits: u64,
    /// In L2.
    #[serde(skip_serializing_if = "is_zero")]
    pub l2_hits: u64,
    /// In L3.
    #[serde(skip_serializing_if = "is_zero")]
    pub l3_hits: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

impl Counts {
    /// The counters of an array in [`field`] order.
    pub fn from_array(c: &[u64; field::N]) -> Counts {
        use field::*;
        Counts {
            instructions: c[INSTRUCTIONS],
            dp_fma_flops: c[DP_FMA],
            dp_other_flops: c[DP_OTHER],
            sp_fma_flops: c[SP_FMA],
            sp_other_flops: c[SP_OTHER],
            fp_scalar: c[FP_SCALAR],
            fp_128: c[FP_128],
            fp_256: c[FP_256],
            fp_512: c[FP_512],
            x87: c[X87],
            loads: c[LOADS],
            stores: c[STORES],
            bytes_loaded: c[BYTES_LOADED],
            bytes_stored: c[BYTES_STORED],
            int8_ops: c[INT8_OPS],
            int16_ops: c[INT16_OPS],
            int32_ops: c[INT32_OPS],
            bf16_flops: c[BF16_FLOPS],
            fp16_flops: c[FP16_FLOPS],
            l2_read: c[L2_READ],
            l2_write: c[L2_WRITE],
            l3_read: c[L3_READ],
            l3_write: c[L3_WRITE],
            dram_read: c[DRAM_READ],
            dram_write: c[DRAM_WRITE],
            l1_hits: c[L1_HITS],
            l2_hits: c[L2_HITS],
            l3_hits: c[L3_HITS],
        }
    }

    /// The counters as an array in [`field`] order.
    pub fn to_array(&self) -> [u64; field::N] {
        let mut a = [0; field::N];
        use field::*;
        a[INSTRUCTIONS] = self.instructions;
        a[DP_FMA] = self.dp_fma_flops;
        a[DP_OTHER] = self.dp_other_flops;
        a[SP_FMA] = self.sp_fma_flops;
        a[SP_OTHER] = self.sp_other_flops;
        a[FP_SCALAR] = self.fp_scalar;
        a[FP_128] = self.fp_128;
        a[FP_256] = self.fp_256;
        a[FP_512] = self.fp_512;
        a[X87] = self.x87;
        a[LOADS] = self.loads;
        a[STORES] = self.stores;
        a[BYTES_LOADED] = self.bytes_loaded;
        a[BYTES_STORED] = self.bytes_stored;
        a[INT8_OPS] = self.int8_ops;
        a[INT16_OPS] = self.int16_ops;
        a[INT32_OPS] = self.int32_ops;
        a[BF16_FLOPS] = self.bf16_flops;
        a[FP16_FLOPS] = self.fp16_flops;
        a[L2_READ] = self.l2_read;
        a[L2_WRITE] = self.l2_write;
        a[L3_READ] = self.l3_read;
        a[L3_WRITE] = self.l3_write;
        a[DRAM_READ] = self.dram_read;
        a[DRAM_WRITE] = self.dram_write;
        a[L1_HITS] = self.l1_hits;
        a[L2_HITS] = self.l2_hits;
        a[L3_HITS] = self.l3_hits;
        a
    }

    /// W: flops (an FMA counts two), x87 left out as the PMUs leave it out.
    pub fn flops(&self) -> u64 {
        self.dp_fma_flops + self.dp_other_flops + self.sp_fma_flops + self.sp_other_flops
    }

    /// Flops done by FMA instructions.
    pub fn fma_flops(&self) -> u64 {
        self.dp_fma_flops + self.sp_fma_flops
    }

    /// Integer ops of vector instructions, all widths.
    pub fn integer_ops(&self) -> u64 {
        self.int8_ops + self.int16_ops + self.int32_ops
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
        assert_eq!(c.flops(), 2 + 4 + 8 + 16);
        assert_eq!(c.bytes(), (1 << 12) + (1 << 13));
    }
}
