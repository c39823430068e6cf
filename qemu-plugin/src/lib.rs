//! A QEMU TCG plugin (plugin API version 1, as QEMU 7.2 implements it)
//! that counts the flops and bytes a program requests, for
//! `carmbench profile --counts emulate`.
//!
//! SPDX-License-Identifier: GPL-2.0-or-later
//!
//! Loaded by `qemu-x86_64 -plugin file=libcarmbench_qemu_plugin.so,out=DIR
//! PROGRAM ARGS` (the command `carmbench_counts::follow` builds). Each
//! instruction is decoded once, when QEMU translates its block
//! ([`classify`]); a run of a block adds one to the block's runs on its
//! thread ([`tally`]; by QEMU's inline add while the process has one
//! thread, [`solo`]), and the counts are the runs times each block's
//! counts. Instructions whose bytes depend on run-time state get QEMU's
//! memory callbacks instead, and so does every access when the caches are
//! simulated ([`cache`]). Regions marked with carmbench's regions library
//! arrive as system calls of a number no kernel uses ([`protocol`]), and so
//! do the preload library's words about the programs a process starts. At
//! exit, when the process execs another program, or when all its threads
//! wait ([`waits`]), the sums over threads (and per region, and per block
//! of code, [`sites`]) are written as JSON to a file of the process's own
//! in DIR ([`process`]); with loops asked for, the control flow between
//! blocks too ([`edges`]), a signal handler's run left out of it
//! ([`signals`]); with a timeline asked for, the run in windows of time
//! ([`timeline`]).

pub mod cache;
pub mod classify;
pub mod edges;
pub mod integer;
pub mod maps;
pub mod packed;
pub mod placement;
pub mod process;
pub mod protocol;
pub mod signals;
pub mod sites;
pub mod solo;
pub mod tally;
pub mod timeline;
pub mod waits;

#[cfg(not(test))]
mod qemu;
