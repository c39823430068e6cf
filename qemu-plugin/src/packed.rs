//! A block callback's one word of data: the block's id and where its
//! counts are. A translated block's counts (only those not zero: a block
//! mostly counts instructions and a few accesses) are leaked, as QEMU may
//! run the block until exit; a run reads no memory for them unless a region
//! is open, so the word carries the id itself.

use std::ffi::c_void;

/// A block's counts, (field, value).
pub type BlockCounts = Vec<(usize, u64)>;

/// Bits of a packed word that hold the block's id.
const ID_BITS: u32 = 20;

/// `id` and the (8-byte aligned, below 2^47) address of `counts` in one
/// word: none when either does not fit.
pub fn pack(id: u32, counts: *const BlockCounts) -> Option<usize> {
    let at = counts as usize;
    (id < 1 << ID_BITS && at < 1 << 47 && at.is_multiple_of(8))
        .then_some((at >> 3) << ID_BITS | id as usize)
}

/// What [`pack`] packed.
#[inline]
pub fn unpack(word: *mut c_void) -> (u32, *const BlockCounts) {
    let w = word as usize;
    (
        (w & ((1 << ID_BITS) - 1)) as u32,
        ((w >> ID_BITS) << 3) as *const BlockCounts,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use carmbench_counts::field;

    #[test]
    fn a_block_id_and_its_counts_pack_in_one_word_where_they_fit() {
        let counts: BlockCounts = vec![(field::DP_FMA, 8)];
        let at: *const BlockCounts = &counts;
        for id in [0, 1, (1 << ID_BITS) - 1] {
            let word = pack(id, at).unwrap();
            assert_eq!(unpack(word as *mut c_void), (id, at));
        }
        assert_eq!(pack(1 << ID_BITS, at), None);
        assert_eq!(pack(3, (1usize << 47) as *const BlockCounts), None);
        assert_eq!(pack(3, 0x1004 as *const BlockCounts), None);
    }
}
