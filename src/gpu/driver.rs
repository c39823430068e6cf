//! The CUDA driver, loaded when carmbench runs (`cudarc` with dynamic
//! loading): carmbench builds and runs where no CUDA exists. What each
//! device is ([`devices`]); on one device ([`Gpu`]), PTX compiled by the
//! driver, buffers, and a launch timed by events as one sample.

use super::{Capability, GpuInfo};
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{CudaContext, DriverError, result};
use std::ffi::{CString, c_void};
use std::sync::Arc;

/// Why no GPU can be used, in a line that names the cause.
#[derive(Debug, Clone, PartialEq)]
pub struct Missing(pub String);

/// The driver's library is not there: no NVIDIA driver on this machine (or
/// not where the loader looks).
fn no_driver() -> Missing {
    Missing(
        "no CUDA driver (libcuda.so) could be loaded; install the NVIDIA driver, or add its \
         folder to LD_LIBRARY_PATH"
            .into(),
    )
}

fn failed(what: &str, e: DriverError) -> Missing {
    Missing(format!("the CUDA driver failed to {what}: {e}"))
}

/// Whether the driver's library loads, without calling it (which would
/// panic where a symbol is missing).
pub fn driver_present() -> bool {
    // SAFETY: loading a library by name and dropping it runs only its initialisers.
    unsafe { sys::is_culib_present() }
}

/// Every device the driver sees, described.
pub fn devices() -> Result<Vec<GpuInfo>, Missing> {
    if !driver_present() {
        return Err(no_driver());
    }
    // A driver older than the bindings may lack a symbol: cudarc panics then,
    // and that panic is the one line below, not a message and a backtrace.
    let found = quietly(|| -> Result<Vec<GpuInfo>, Missing> {
        result::init().map_err(|e| failed("start", e))?;
        let n = result::device::get_count().map_err(|e| failed("count its devices", e))?;
        (0..n).map(describe).collect()
    });
    found.unwrap_or_else(|_| {
        Err(Missing(
            "the CUDA driver lacks a function carmbench calls; update the NVIDIA driver".into(),
        ))
    })
}

/// `f`, a panic in it caught without the panic hook's message (the hook is
/// the process's: put back once `f` returns).
fn quietly<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> std::thread::Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(hook);
    r
}

fn describe(ordinal: i32) -> Result<GpuInfo, Missing> {
    let dev = result::device::get(ordinal).map_err(|e| failed("open a device", e))?;
    // SAFETY: `dev` came from `device::get`.
    let attr = |a: Attr| {
        unsafe { result::device::get_attribute(dev, a) }
            .map_err(|e| failed("read a device attribute", e))
    };
    let mut version = 0;
    // SAFETY: the pointer is to a live c_int.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| failed("give its version", e))?;
    let positive = |v: i32| u64::try_from(v).unwrap_or(0);
    Ok(GpuInfo {
        index: usize::try_from(ordinal).unwrap_or(0),
        name: result::device::get_name(dev).map_err(|e| failed("name a device", e))?,
        capability: Capability {
            major: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?) as u32,
            minor: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?) as u32,
        },
        sms: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?) as u32,
        clock_mhz: f64::from(attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?) / 1000.0,
        l2_bytes: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?),
        shared_per_sm: positive(attr(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        )?),
        // SAFETY: `dev` came from `device::get`.
        memory_bytes: unsafe { result::device::total_mem(dev) }
            .map_err(|e| failed("size its memory", e))? as u64,
        bus_bits: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?) as u32,
        memory_clock_mhz: f64::from(attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?) / 1000.0,
        driver: format!("{}.{}", version / 1000, version % 1000 / 10),
    })
}

/// One device, its context current on this thread.
pub struct Gpu {
    /// What it is.
    pub info: GpuInfo,
    ctx: Arc<CudaContext>,
}

/// A kernel compiled for the device.
pub struct Function {
    f: sys::CUfunction,
    module: sys::CUmodule,
}

impl Drop for Function {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by `Gpu::compile` and is unloaded once.
        let _ = unsafe { sys::cuModuleUnload(self.module) };
    }
}

/// Device memory, freed when dropped.
pub struct Buffer {
    /// Its device address.
    pub ptr: sys::CUdeviceptr,
    /// Its size.
    pub bytes: usize,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated by `Gpu::alloc`, freed once.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// A launch's shape and arguments: each argument a 64-bit or 32-bit value.
pub struct Launch<'a> {
    /// Blocks.
    pub grid: u32,
    /// Threads a block.
    pub block: u32,
    /// Dynamic shared memory, bytes.
    pub shared: u32,
    /// The kernel's parameters, in order.
    pub args: &'a [Arg],
}

/// One kernel parameter.
#[derive(Debug, Clone, Copy)]
pub enum Arg {
    /// A `.u64` (an address or a size).
    U64(u64),
    /// A `.u32`.
    U32(u32),
}

impl Gpu {
    /// Open device `index` of `devices()`.
    pub fn open(info: GpuInfo) -> Result<Gpu, Missing> {
        let ctx = CudaContext::new(info.index).map_err(|e| failed("open a context", e))?;
        Ok(Gpu { info, ctx })
    }

    /// Compile `ptx` for this device and find its entry `name`; the
    /// driver's log where it refuses.
    pub fn compile(&self, ptx: &str, name: &str) -> Result<Function, String> {
        self.ctx.bind_to_thread().map_err(|e| e.to_string())?;
        let src = CString::new(ptx).map_err(|e| e.to_string())?;
        let mut log = vec![0u8; 8192];
        let mut opts = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut vals = [log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
        let mut module = std::ptr::null_mut();
        // SAFETY: a NUL-terminated image, and option arrays of the same length that outlive the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                src.as_ptr().cast(),
                2,
                opts.as_mut_ptr(),
                vals.as_mut_ptr(),
            )
        };
        if let Err(e) = r.result() {
            let text = String::from_utf8_lossy(&log)
                .trim_end_matches('\0')
                .trim()
                .to_string();
            return Err(format!("{e}: {text}"));
        }
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: the module was just loaded.
        let f = unsafe { result::module::get_function(module, cname) };
        match f {
            Ok(f) => Ok(Function { f, module }),
            Err(e) => {
                // SAFETY: loaded above, unloaded once.
                let _ = unsafe { sys::cuModuleUnload(module) };
                Err(e.to_string())
            }
        }
    }

    /// Blocks of `block` threads with `shared` bytes each that one SM holds at once.
    pub fn blocks_per_sm(&self, f: &Function, block: u32, shared: u32) -> Result<u32, String> {
        // SAFETY: `f` is a live function of this context.
        let n = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                f.f,
                block as i32,
                shared as usize,
            )
        };
        n.map(|n| n.max(1) as u32).map_err(|e| e.to_string())
    }

    /// Allow `f` more than 48 KiB of dynamic shared memory.
    pub fn allow_shared(&self, f: &Function, bytes: u32) -> Result<(), String> {
        let a = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: `f` is a live function of this context.
        unsafe { result::function::set_function_attribute(f.f, a, bytes as i32) }
            .map_err(|e| e.to_string())
    }

    /// `bytes` of device memory, zeroed.
    pub fn alloc(&self, bytes: usize) -> Result<Buffer, String> {
        // SAFETY: a fresh allocation, zeroed before use, freed by its Drop.
        unsafe {
            let ptr =
                result::malloc_sync(bytes.max(16)).map_err(|e| format!("{bytes} bytes: {e}"))?;
            let b = Buffer { ptr, bytes };
            result::memset_d8_sync(ptr, 0, bytes.max(16)).map_err(|e| e.to_string())?;
            Ok(b)
        }
    }

    /// Copy a buffer back: `n` 64-bit words.
    pub fn read_u64(&self, b: &Buffer, n: usize) -> Result<Vec<u64>, String> {
        let mut out = vec![0u64; n.min(b.bytes / 8)];
        // SAFETY: `out` is no larger than the buffer.
        unsafe { result::memcpy_dtoh_sync(&mut out, b.ptr) }.map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// Run `f` once and the seconds it took, timed by events around it.
    pub fn time(&self, f: &Function, l: &Launch) -> Result<f64, String> {
        let mut vals: Vec<[u8; 8]> = l
            .args
            .iter()
            .map(|a| match *a {
                Arg::U64(v) => v.to_ne_bytes(),
                Arg::U32(v) => u64::from(v).to_ne_bytes(),
            })
            .collect();
        let mut params: Vec<*mut c_void> = vals.iter_mut().map(|v| v.as_mut_ptr().cast()).collect();
        self.timed(|stream| {
            // SAFETY: the parameters point at values that live through the call; a u32 is read
            // from the first four bytes of its slot (little-endian, as every CUDA host is).
            unsafe {
                result::launch_kernel(
                    f.f,
                    (l.grid, 1, 1),
                    (l.block, 1, 1),
                    l.shared,
                    stream,
                    &mut params,
                )
            }
        })
    }

    /// The seconds a device-to-device copy of `bytes` took (the driver's own copy).
    pub fn time_copy(&self, dst: &Buffer, src: &Buffer, bytes: usize) -> Result<f64, String> {
        // SAFETY: both buffers hold at least `bytes`.
        self.timed(|stream| unsafe { result::memcpy_dtod_async(dst.ptr, src.ptr, bytes, stream) })
    }

    fn timed(
        &self,
        work: impl FnOnce(sys::CUstream) -> Result<(), DriverError>,
    ) -> Result<f64, String> {
        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
        let start = result::event::create(flags).map_err(|e| e.to_string())?;
        let end = result::event::create(flags).map_err(|e| e.to_string())?;
        let stream: sys::CUstream = std::ptr::null_mut();
        // SAFETY: events created above, destroyed below; the null stream is the context's own.
        let r = unsafe {
            result::event::record(start, stream)
                .and_then(|_| work(stream))
                .and_then(|_| result::event::record(end, stream))
                .and_then(|_| result::event::synchronize(end))
                .and_then(|_| result::event::elapsed(start, end))
        };
        // SAFETY: each event once.
        unsafe {
            let _ = result::event::destroy(start);
            let _ = result::event::destroy(end);
        }
        r.map(|ms| f64::from(ms) / 1000.0)
            .map_err(|e| e.to_string())
    }
}
