//! Nsight Compute's output read (`ncu --csv --metrics ...`): one row per
//! kernel launch and metric, among the program's own lines and ncu's
//! `==PROF==` notes. Launches are summed by kernel, and a kernel's flops
//! follow NVIDIA's rule for its roofline: an FMA instruction of a thread
//! is two flops, an add or a multiply one.

use std::collections::BTreeMap;

/// The metrics `profile --gpu` asks Nsight Compute for: time, bytes by
/// level, instructions by type and pipe, tensor-core operations by type
/// (`scripts/bench-gpu.sh` asks for the same).
pub const METRICS: &[&str] = &[
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "sm__sass_inst_executed.sum",
    "smsp__inst_executed.sum",
    "sm__sass_thread_inst_executed_op_integer_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_memory_pred_on.sum",
    "sm__inst_executed_pipe_tensor.sum",
    "sm__sass_inst_executed_op_global_ld.sum",
    "sm__sass_inst_executed_op_global_st.sum",
    "sm__sass_inst_executed_op_shared_ld.sum",
    "sm__sass_inst_executed_op_shared_st.sum",
    "sm__ops_path_tensor_src_fp16.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp64.sum",
    "sm__ops_path_tensor_src_int8.sum",
    "sm__ops_path_tensor_src_fp8.sum",
    "sm__cycles_elapsed.avg.per_second",
    "launch__grid_size",
    "launch__block_size",
];

/// One kernel launch and its metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// ncu's launch number.
    pub id: u64,
    /// The GPU it ran on (the driver's index).
    pub device: u32,
    /// The kernel, demangled with its arguments' types.
    pub kernel: String,
    /// Its metrics by name (`dram__bytes_read.sum`), as numbers.
    pub metrics: BTreeMap<String, f64>,
}

/// A kernel's launches together.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// The kernel.
    pub name: String,
    /// The GPU its first launch ran on.
    pub device: u32,
    /// Its launches.
    pub launches: usize,
    /// Counters (`.sum`) summed over its launches; other metrics (rates,
    /// launch shapes) their mean.
    pub metrics: BTreeMap<String, f64>,
}

/// The precisions of a kernel's flops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlopType {
    /// FP32 (FFMA, FADD, FMUL).
    Fp32,
    /// FP64 (DFMA, DADD, DMUL).
    Fp64,
}

/// Every launch in ncu's output, or the line that says why there is none
/// (the counters not permitted: how to permit them).
pub fn parse(text: &str) -> Result<Vec<Launch>, String> {
    if let Some(l) = text.lines().find(|l| l.contains("ERR_NVGPUCTRPERM")) {
        return Err(format!(
            "Nsight Compute may not read the GPU's counters ({}): run as root, or let every user read them (the NVIDIA driver's option NVreg_RestrictProfilingToAdminUsers=0)",
            l.trim().trim_start_matches("==ERROR==").trim()
        ));
    }
    if let Some(l) = text.lines().find(|l| l.starts_with("==ERROR==")) {
        return Err(format!(
            "Nsight Compute failed: {}",
            l.trim_start_matches("==ERROR==").trim()
        ));
    }
    let rows: String = text
        .lines()
        .filter(|l| l.starts_with('"'))
        .map(|l| format!("{l}\n"))
        .collect();
    // No table: the program launched no kernel ("No kernels were profiled").
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::Reader::from_reader(rows.as_bytes());
    let head = reader.headers().map_err(|e| e.to_string())?.clone();
    let col = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .ok_or(format!("ncu's CSV has no column {name}"))
    };
    let (id, kernel, metric, value) = (
        col("ID")?,
        col("Kernel Name")?,
        col("Metric Name")?,
        col("Metric Value")?,
    );
    let device = head.iter().position(|h| h == "Device");
    let mut launches: Vec<Launch> = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| e.to_string())?;
        let n: u64 = row[id]
            .parse()
            .map_err(|_| format!("ncu's launch number '{}' is not a number", &row[id]))?;
        let Ok(v) = row[value].replace(',', "").parse::<f64>() else {
            continue;
        };
        if launches.last().is_none_or(|l| l.id != n) {
            launches.push(Launch {
                id: n,
                device: device.and_then(|d| row[d].parse().ok()).unwrap_or(0),
                kernel: row[kernel].to_string(),
                metrics: BTreeMap::new(),
            });
        }
        if let Some(l) = launches.last_mut() {
            l.metrics.insert(row[metric].to_string(), v);
        }
    }
    Ok(launches)
}

/// The launches by kernel, in the order each kernel first ran.
pub fn kernels(launches: &[Launch]) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = Vec::new();
    for l in launches {
        let k = match (out.iter()).position(|k| k.name == l.kernel && k.device == l.device) {
            Some(i) => &mut out[i],
            None => {
                out.push(Kernel {
                    name: l.kernel.clone(),
                    device: l.device,
                    launches: 0,
                    metrics: BTreeMap::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        k.launches += 1;
        for (m, v) in &l.metrics {
            *k.metrics.entry(m.clone()).or_insert(0.0) += v;
        }
    }
    for k in &mut out {
        let n = k.launches as f64;
        for (m, v) in k.metrics.iter_mut() {
            if !m.ends_with(".sum") {
                *v /= n;
            }
        }
    }
    out
}

impl Kernel {
    /// A metric, 0 where ncu did not give it.
    pub fn metric(&self, name: &str) -> f64 {
        self.metrics.get(name).copied().unwrap_or(0.0)
    }
    /// Its flops of `t`, all launches: FMAs twice, adds and multiplies once.
    pub fn flops(&self, t: FlopType) -> f64 {
        let p = match t {
            FlopType::Fp32 => 'f',
            FlopType::Fp64 => 'd',
        };
        let op = |o: &str| {
            self.metric(&format!(
                "sm__sass_thread_inst_executed_op_{p}{o}_pred_on.sum"
            ))
        };
        2.0 * op("fma") + op("add") + op("mul")
    }
    /// Its time on the GPU, all launches, seconds.
    pub fn seconds(&self) -> f64 {
        self.metric("gpu__time_duration.sum") / 1e9
    }
    /// Bytes it read and wrote in device memory, all launches.
    pub fn dram_bytes(&self) -> f64 {
        self.metric("dram__bytes_read.sum") + self.metric("dram__bytes_write.sum")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<Kernel> {
        let path = format!(
            "{}/tests/fixtures/ncu/{name}.csv",
            env!("CARGO_MANIFEST_DIR")
        );
        kernels(&parse(&std::fs::read_to_string(path).unwrap()).unwrap())
    }

    #[test]
    fn the_test_programs_flops_are_their_hand_counts() {
        // A triad: one FFMA an element, 2^26 elements, 5 launches.
        let t = &fixture("triad")[0];
        assert!(t.name.starts_with("triad(float *"), "{}", t.name);
        assert_eq!(t.launches, 5);
        assert_eq!(t.flops(FlopType::Fp32), 5.0 * 2.0 * 67_108_864.0);
        // The stencil: 4 adds and a multiply at each of 4094^2 points.
        let s = &fixture("stencil")[0];
        assert_eq!(s.flops(FlopType::Fp32) / 5.0, 5.0 * 4094.0 * 4094.0);
        assert_eq!(s.flops(FlopType::Fp64), 0.0);
        // The SGEMM: 2 N^3.
        let g = &fixture("sgemm")[0];
        assert_eq!(g.flops(FlopType::Fp32) / 5.0, 2.0 * 2048f64.powi(3));
        // The triad's reads are its two arrays: 8 bytes an element, each launch.
        let read = t.metric("dram__bytes_read.sum") / 5.0;
        assert!((read / (8.0 * 67_108_864.0) - 1.0).abs() < 0.01, "{read}");
        // Rates are means, not sums: the SM clock near 2 GHz.
        assert!((t.metric("sm__cycles_elapsed.avg.per_second") / 1e9 - 1.98).abs() < 0.1);
    }

    #[test]
    fn a_program_with_three_kernels_gives_three() {
        let k = fixture("intensity");
        let names: Vec<&str> = k.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(
            names.iter().all(|n| n.starts_with("void intensity<")),
            "{names:?}"
        );
        // K dependent FMAs on each of 2^26 floats (and the sum's add).
        let ffma =
            |i: usize| k[i].metric("sm__sass_thread_inst_executed_op_ffma_pred_on.sum") / 5.0;
        assert_eq!(ffma(1) / ffma(0), 8.0);
        assert_eq!(ffma(2) / ffma(0), 64.0);
    }

    #[test]
    fn counters_not_permitted_name_the_fix() {
        let text = "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.\n";
        let e = parse(text).unwrap_err();
        assert!(
            e.contains("NVreg_RestrictProfilingToAdminUsers=0") && e.contains("root"),
            "{e}"
        );
        assert!(
            parse("==ERROR== Failed to find metric foo")
                .unwrap_err()
                .contains("foo")
        );
        assert_eq!(parse("==WARNING== No kernels were profiled.\n"), Ok(vec![]));
        assert_eq!(
            parse("\"Kernel\",\"Value\"\n\"k\",\"1\"\n").map(|l| l.len()),
            Err("ncu's CSV has no column ID".into())
        );
    }
}
