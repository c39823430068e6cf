//! Translated blocks: each instruction decoded once, and the block's runs
//! counted by a callback or, while the process has one thread, an inline
//! add ([`crate::solo`]).

use super::*;

/// A block of counts past [`pack`]'s reach: its id and counts, leaked.
pub(super) struct Wide {
    id: u32,
    counts: BlockCounts,
}

/// Block `id` ran on `vcpu`, with its counts at `counts`.
#[inline]
pub(super) fn ran(vcpu: c_uint, id: u32, counts: *const BlockCounts) -> &'static Thread {
    let me = mine(vcpu);
    if me.ran(id) {
        // SAFETY: the counts leaked in `on_translate` for this block.
        me.add(unsafe { &*counts });
    }
    me
}

pub(super) extern "C" fn on_block(vcpu: c_uint, udata: *mut c_void) {
    let (id, counts) = unpack(udata);
    ran(vcpu, id, counts);
}

pub(super) extern "C" fn on_block_wide(vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: udata is the Wide leaked for this block in `on_translate`.
    let b = unsafe { &*(udata as *const Wide) };
    ran(vcpu, b.id, &b.counts);
}

/// [`on_block`], and the pair (the block before, this one) counted: the
/// control flow loops are found in.
pub(super) extern "C" fn on_block_followed(vcpu: c_uint, udata: *mut c_void) {
    let (id, counts) = unpack(udata);
    followed(ran(vcpu, id, counts), id);
}

pub(super) extern "C" fn on_block_followed_wide(vcpu: c_uint, udata: *mut c_void) {
    // SAFETY: as in `on_block_wide`.
    let b = unsafe { &*(udata as *const Wide) };
    followed(ran(vcpu, b.id, &b.counts), b.id);
}

/// Block `id` ran after the one `me` ran last.
pub(super) fn followed(me: &Thread, id: u32) {
    // A load and a store: only this thread writes it (no locked swap).
    let before = me.last.load(Ordering::Relaxed);
    me.last.store(id, Ordering::Relaxed);
    if before != u32::MAX {
        me.runs.followed(before, id, &me.edges);
    }
}

thread_local! {
    pub(super) static DECODER_INFO: std::cell::RefCell<InstructionInfoFactory> =
        std::cell::RefCell::new(InstructionInfoFactory::new());
}

/// A block as translated: its counts, the instructions that get memory
/// callbacks, its pieces (loops asked for), its extent and how it ends.
struct Decoded {
    block: Array,
    dynamic: Vec<*mut Insn>,
    accessing: Vec<*mut Insn>,
    pieces: Vec<crate::sites::Piece>,
    first_ip: u64,
    end_ip: u64,
    ends: carmbench_counts::End,
}

pub(super) extern "C" fn on_translate(_id: PluginId, tb: *mut Tb) {
    // SAFETY: QEMU's handles, valid for this callback.
    let n = unsafe { qemu_plugin_tb_n_insns(tb) };
    let loops = LOOPS.get().is_some();
    let d = decode(tb, n, loops);
    let counts = sparse(&d.block);
    let host = host_address(tb, n);
    tally().guest_at(d.first_ip, host);
    let id = tally().block(crate::sites::Block {
        host_address: host,
        map: None,
        counts: counts.clone(),
        size: d.end_ip - d.first_ip,
        pieces: d.pieces,
        ends: d.ends,
    });
    if CACHES.get().is_some() {
        watch_memory(&d.accessing, on_access, id);
    }
    watch_memory(&d.dynamic, on_memory, id);
    if loops && n > 0 && tally().handlers.contains(d.first_ip) {
        // SAFETY: a callback on this block, before the one counting its run
        // (QEMU calls them in that order).
        let udata = id as usize as *mut c_void;
        unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, on_handler, CB_NO_REGS, udata) };
    }
    count_runs(tb, id, counts, loops);
}

/// A signal handler begins (or is called): the block that ran before it is
/// kept for its `rt_sigreturn`. A one-block loop at the handler's first
/// block is not a new handler each trip.
extern "C" fn on_handler(vcpu: c_uint, udata: *mut c_void) {
    let me = mine(vcpu);
    let last = me.last.load(Ordering::Relaxed);
    if last != udata as usize as u32 {
        me.interrupted.begins(last);
    }
}

/// The block's place: the host address of its code (the guest's under
/// user mode, offset by QEMU's guest base), found in /proc/self/maps.
fn host_address(tb: *mut Tb, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // SAFETY: QEMU's handles, valid for this callback.
    unsafe {
        let first = qemu_plugin_tb_get_insn(tb, 0);
        let h = qemu_plugin_insn_haddr(first) as u64;
        if h == 0 {
            qemu_plugin_insn_vaddr(first)
        } else {
            h
        }
    }
}

/// Decode the `n` instructions of `tb`, each once.
fn decode(tb: *mut Tb, n: usize, loops: bool) -> Decoded {
    let mut d = Decoded {
        block: [0; field::N],
        dynamic: Vec::new(),
        accessing: Vec::new(),
        pieces: Vec::new(),
        first_ip: 0,
        end_ip: 0,
        ends: carmbench_counts::End::Other,
    };
    for k in 0..n {
        // SAFETY: as above; the data spans the instruction's size.
        let (insn, bytes, ip) = unsafe {
            let insn = qemu_plugin_tb_get_insn(tb, k);
            let data = qemu_plugin_insn_data(insn) as *const u8;
            let size = qemu_plugin_insn_size(insn);
            (
                insn,
                std::slice::from_raw_parts(data, size).to_vec(),
                qemu_plugin_insn_vaddr(insn),
            )
        };
        // A cut instruction (k > 0) is not run here: QEMU ends the block
        // before it and runs it as the next one.
        if k > 0 && classify::cut_short(&bytes, ip) {
            break;
        }
        let i = DECODER_INFO.with(|f| classify::decode(&bytes, ip, &mut f.borrow_mut()));
        for (s, x) in d.block.iter_mut().zip(i.counts) {
            *s += x;
        }
        let accesses = i.dynamic || i.counts[field::LOADS] + i.counts[field::STORES] > 0;
        if i.dynamic {
            d.dynamic.push(insn);
        }
        if accesses {
            d.accessing.push(insn);
        }
        if k == 0 {
            d.first_ip = ip;
        }
        d.end_ip = ip + bytes.len() as u64;
        d.ends = i.ends;
        if loops {
            d.pieces.push(crate::sites::Piece {
                at: ip - d.first_ip,
                counts: sparse(&i.counts),
                accesses: accesses && (i.dynamic || CACHES.get().is_some()),
            });
        }
    }
    d
}

/// A memory callback `cb` on each of `insns`, for block `id`.
fn watch_memory(insns: &[*mut Insn], cb: MemCb, id: u32) {
    for &insn in insns {
        // SAFETY: registering a callback on an instruction of this block.
        unsafe {
            qemu_plugin_register_vcpu_mem_cb(
                insn,
                cb,
                CB_NO_REGS,
                MEM_RW,
                id as usize as *mut c_void,
            )
        };
    }
}

/// How block `id`'s runs are counted: by QEMU's inline add while the
/// process has one thread (loops not asked for), else by a callback with
/// its counts.
fn count_runs(tb: *mut Tb, id: u32, counts: Vec<(usize, u64)>, loops: bool) {
    if !loops
        && tally().solo.inline()
        && let Some(counter) = tally().solo.counter(id)
    {
        // SAFETY: an inline add on this block to a counter that lives until
        // exit.
        unsafe { qemu_plugin_register_vcpu_tb_exec_inline(tb, INLINE_ADD_U64, counter.cast(), 1) };
        return;
    }
    let leaked = Box::into_raw(Box::new(counts));
    let (cb, udata) = match pack(id, leaked) {
        Some(word) => {
            let cb = match loops {
                true => on_block_followed as VcpuUdataCb,
                false => on_block as VcpuUdataCb,
            };
            (cb, word as *mut c_void)
        }
        None => {
            // SAFETY: made just above, not shared.
            let counts = *unsafe { Box::from_raw(leaked) };
            let cb = match loops {
                true => on_block_followed_wide as VcpuUdataCb,
                false => on_block_wide as VcpuUdataCb,
            };
            (cb, Box::into_raw(Box::new(Wide { id, counts })).cast())
        }
    };
    // SAFETY: registering a callback on this block with its counts.
    unsafe { qemu_plugin_register_vcpu_tb_exec_cb(tb, cb, CB_NO_REGS, udata) };
}

/// The counters that are not zero, as (field, value) pairs.
pub(super) fn sparse(c: &Array) -> Vec<(usize, u64)> {
    (c.iter().enumerate())
        .filter(|(_, v)| **v > 0)
        .map(|(i, v)| (i, *v))
        .collect()
}
