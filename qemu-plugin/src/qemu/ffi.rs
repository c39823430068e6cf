//! QEMU's plugin C API, version 1 (`include/qemu/qemu-plugin.h` of QEMU
//! 7.2), declared here for the few functions used. QEMU resolves these
//! symbols from its own binary when it loads the plugin.

use super::*;

pub(super) type PluginId = u64;

#[repr(C)]
pub(super) struct Tb {
    _opaque: [u8; 0],
}

#[repr(C)]
pub(super) struct Insn {
    _opaque: [u8; 0],
}

/// `qemu_info_t`: the fields read here come first.
#[repr(C)]
pub struct QemuInfo {
    pub(super) target_name: *const c_char,
    pub(super) version_min: c_int,
    pub(super) version_cur: c_int,
    pub(super) system_emulation: bool,
}

/// `QEMU_PLUGIN_CB_NO_REGS`.
pub(super) const CB_NO_REGS: c_int = 0;
/// `QEMU_PLUGIN_INLINE_ADD_U64`.
pub(super) const INLINE_ADD_U64: c_int = 0;
/// `QEMU_PLUGIN_MEM_RW`.
pub(super) const MEM_RW: c_int = 3;

pub(super) type TbTransCb = extern "C" fn(PluginId, *mut Tb);
pub(super) type VcpuUdataCb = extern "C" fn(c_uint, *mut c_void);
pub(super) type MemCb = extern "C" fn(c_uint, u32, u64, *mut c_void);
pub(super) type SyscallCb =
    extern "C" fn(PluginId, c_uint, i64, u64, u64, u64, u64, u64, u64, u64, u64);
pub(super) type SyscallRetCb = extern "C" fn(PluginId, c_uint, i64, i64);
pub(super) type UdataCb = extern "C" fn(PluginId, *mut c_void);
pub(super) type ResetCb = extern "C" fn(PluginId);

unsafe extern "C" {
    pub(super) fn qemu_plugin_register_vcpu_tb_trans_cb(id: PluginId, cb: TbTransCb);
    pub(super) fn qemu_plugin_register_vcpu_tb_exec_cb(
        tb: *mut Tb,
        cb: VcpuUdataCb,
        flags: c_int,
        userdata: *mut c_void,
    );
    pub(super) fn qemu_plugin_register_vcpu_tb_exec_inline(
        tb: *mut Tb,
        op: c_int,
        ptr: *mut c_void,
        imm: u64,
    );
    pub(super) fn qemu_plugin_reset(id: PluginId, cb: ResetCb);
    pub(super) fn qemu_plugin_tb_n_insns(tb: *const Tb) -> usize;
    pub(super) fn qemu_plugin_tb_get_insn(tb: *const Tb, idx: usize) -> *mut Insn;
    pub(super) fn qemu_plugin_insn_data(insn: *const Insn) -> *const c_void;
    pub(super) fn qemu_plugin_insn_size(insn: *const Insn) -> usize;
    pub(super) fn qemu_plugin_insn_vaddr(insn: *const Insn) -> u64;
    pub(super) fn qemu_plugin_insn_haddr(insn: *const Insn) -> *mut c_void;
    pub(super) fn qemu_plugin_register_vcpu_mem_cb(
        insn: *mut Insn,
        cb: MemCb,
        flags: c_int,
        rw: c_int,
        userdata: *mut c_void,
    );
    pub(super) fn qemu_plugin_mem_size_shift(info: u32) -> c_uint;
    pub(super) fn qemu_plugin_mem_is_store(info: u32) -> bool;
    pub(super) fn qemu_plugin_register_vcpu_syscall_cb(id: PluginId, cb: SyscallCb);
    pub(super) fn qemu_plugin_register_vcpu_syscall_ret_cb(id: PluginId, cb: SyscallRetCb);
    pub(super) fn qemu_plugin_register_atexit_cb(id: PluginId, cb: UdataCb, userdata: *mut c_void);
}
