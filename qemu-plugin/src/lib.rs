//! A QEMU TCG plugin (plugin API version 1, as QEMU 7.2 implements it)
//! that counts the flops and bytes a program requests, for
//! `carmbench profile --counts emulate`.
//!
//! SPDX-License-Identifier: GPL-2.0-or-later
//!
//! Loaded by `qemu-x86_64 -plugin file=libcarmbench_qemu_plugin.so,out=FILE
//! PROGRAM ARGS`. Each instruction is decoded once, when QEMU translates its
//! block ([`classify`]); a block's counts are added to the counters of the
//! thread that runs it each time it runs. Instructions whose bytes depend
//! on run-time state get QEMU's memory callbacks instead. Regions marked with
//! carmbench's regions library arrive as system calls of a number no kernel
//! uses ([`protocol`]). At exit the sums over threads (and per region) are
//! written to FILE as JSON.

pub mod classify;
pub mod protocol;
pub mod tally;

#[cfg(not(test))]
mod qemu;
