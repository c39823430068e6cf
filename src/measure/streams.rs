//! Where a bandwidth kernel's streams lie in a thread's buffer: the
//! working set shared out among the load and store streams, each on its own
//! page, the store stream half a page off the loads, and a long pass split
//! into parts that each still last a sample.

use crate::kernels::{Kernel, Kind, Shape};

/// Streams of one buffer start on separate pages (see [`layout`]).
const STREAM_GAP: usize = 4096;

/// Offset of the store stream within its page, relative to the load streams:
/// with every stream at the same page offset, loads and the stores in flight
/// beside them alias on their low 12 address bits and L1 2LD1ST loses up to
/// a third of its rate with the buffer size (docs/evidence.md, "Stream
/// layout").
pub const STORE_SKEW: usize = 2048;

/// Stream layout of a bandwidth kernel within a thread's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLayout {
    /// Inner iterations per pass.
    pub iters: u64,
    /// Offsets of streams A, B, C in the buffer.
    pub offsets: [usize; 3],
    /// Bytes to allocate.
    pub alloc: usize,
    /// Bytes the streams span (the working set).
    pub span: u64,
    /// Bytes each stream (A, B, C) moves on by per inner iteration.
    pub advance: [usize; 3],
}

/// Place a kernel's streams for a working set of `bytes` per thread: the
/// iterations are the working set over the bytes one iteration touches, and
/// each stream gets its share. Load streams start on page boundaries; the
/// store stream starts [`STORE_SKEW`] (half a page) further, so its low 12
/// address bits never equal those of the loads issued beside it.
pub fn layout(k: &Kernel, bytes: u64, shape: Shape) -> StreamLayout {
    let d = &k.decl;
    let j = u64::from(shape.j);
    let per_iter = d.shaped_bytes(shape).max(1);
    let iters = (bytes / per_iter).max(1);
    let ls = d.load_streams().max(1) as u64;
    let a = (iters * j * d.load_bytes_per_iter() / ls) as usize;
    let c = (iters * j * d.store_bytes_per_iter()) as usize;
    let page = |x: usize| x.div_ceil(STREAM_GAP) * STREAM_GAP;
    let off_b = page(a);
    let off_c = if d.load_streams() == 2 {
        off_b + page(a)
    } else {
        off_b
    } + STORE_SKEW;
    let adv_a = (j * d.load_bytes_per_iter() / ls) as usize;
    StreamLayout {
        iters,
        offsets: [0, off_b, off_c],
        alloc: off_c + page(c).max(STREAM_GAP),
        span: iters * per_iter,
        // Stream B only moves when the kernel reads it.
        advance: [
            adv_a,
            if ls == 2 { adv_a } else { 0 },
            (j * d.store_bytes_per_iter()) as usize,
        ],
    }
}

/// Most parts a pass over a buffer is split into.
///
/// When one pass over the buffer outlasts two minimum samples (a DRAM
/// buffer of 128 MiB at 16 flop/byte takes tens of milliseconds), a sample
/// walks one part of it, the next sample the next part, and so on around the
/// buffer. Every byte is still touched once per whole buffer's worth of
/// traffic, so what the level holds and what spills is the same as with
/// whole passes, but a sample lasts a few milliseconds instead of one long
/// pass.
pub const MAX_PARTS: u64 = 16;

/// Into how many parts to split a pass that lasted `pass` seconds, so that
/// a part still lasts at least `min` seconds: 1 when the pass is shorter than
/// two minimum samples, at most [`MAX_PARTS`] and never more parts than
/// inner iterations.
pub fn parts_for(pass: f64, min: f64, iters: u64) -> u64 {
    if pass.is_nan() || min <= 0.0 || pass < 2.0 * min {
        return 1;
    }
    ((pass / min).floor() as u64).clamp(1, MAX_PARTS.min(iters.max(1)))
}

impl StreamLayout {
    /// Offsets of the streams for part `i` of `parts` (each part
    /// `iters / parts` inner iterations long).
    pub fn part_offsets(&self, i: u64, parts: u64) -> [usize; 3] {
        let step = (self.iters / parts.max(1) * (i % parts.max(1))) as usize;
        let mut o = self.offsets;
        for (o, a) in o.iter_mut().zip(self.advance) {
            *o += step * a;
        }
        o
    }
}

/// Bytes a pool needs per thread for `kernel` at `bytes` with `shape`.
pub fn alloc_for(kernel: &Kernel, bytes: u64, shape: Shape) -> usize {
    match kernel.decl.kind {
        Kind::Compute => 0,
        _ => layout(kernel, bytes, shape).alloc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_passes_split_into_parts_that_still_last_a_sample() {
        // 84 ms passes, 2 ms samples: as many parts as allowed.
        assert_eq!(parts_for(0.084, 0.002, 1 << 20), MAX_PARTS);
        // 9 ms: four parts of 2.25 ms, none shorter than a sample.
        assert_eq!(parts_for(0.009, 0.002, 1 << 20), 4);
        // Shorter than two samples, a broken timer or a zero minimum: whole passes.
        assert_eq!(parts_for(0.0039, 0.002, 1 << 20), 1);
        assert_eq!(parts_for(f64::NAN, 0.002, 1 << 20), 1);
        assert_eq!(parts_for(0.084, 0.0, 1 << 20), 1);
        // Never more parts than inner iterations.
        assert_eq!(parts_for(0.084, 0.002, 3), 3);
    }

    #[test]
    fn parts_tile_every_stream_of_the_buffer_in_turn() {
        use crate::kernels::{KERNELS, Kind};
        for k in KERNELS.iter().filter(|k| k.decl.kind != Kind::Compute) {
            let shape = if k.decl.kind == Kind::Validation {
                Shape { j: 3, k: 5 }
            } else {
                Shape::ONE
            };
            let l = layout(k, 64 << 20, shape);
            for parts in [1, 3, 16] {
                let n = l.iters / parts;
                for i in 0..parts {
                    let o = l.part_offsets(i, parts);
                    for ((o, start), adv) in o.iter().zip(l.offsets).zip(l.advance) {
                        // Part i starts where part i-1 ended, in every stream,
                        // keeps the stream's alignment and ends inside the buffer.
                        let w = k.decl.width() as usize;
                        assert_eq!(
                            *o,
                            start + (i * n) as usize * adv,
                            "{} part {i}/{parts}",
                            k.decl.name
                        );
                        assert_eq!(o % w, start % w);
                        assert!(o + n as usize * adv <= l.alloc, "{}", k.decl.name);
                    }
                }
                // The sample after the last part walks the first part again.
                assert_eq!(l.part_offsets(parts, parts), l.offsets);
            }
            // What one iteration moves through the streams is what the
            // declaration says it touches.
            assert_eq!(
                l.advance.iter().sum::<usize>() as u64,
                k.decl.shaped_bytes(shape),
                "{}",
                k.decl.name
            );
        }
    }
}
