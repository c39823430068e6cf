//! Points added to an apps file: each in place of the point it follows,
//! what an earlier run of the same program left that this run would
//! contradict dropped, the file written whole or not at all.

use super::{APPS_SCHEMA, AppPoint, AppsFile, Of, check_point, load};
use crate::error::{Error, Result};
use std::path::Path;

/// Add `points` to the apps file at `path` (made when missing), each in
/// place of the point of the same name (and program, for a function);
/// written whole or not at all, one writer at a time.
pub fn add_points(path: &Path, points: Vec<AppPoint>) -> Result<()> {
    crate::files::locked(path, || add_points_now(path, points))
}

/// [`add_points`], the file's folder locked.
fn add_points_now(path: &Path, points: Vec<AppPoint>) -> Result<()> {
    let mut f = if path.exists() {
        load(path)?
    } else {
        AppsFile {
            schema: APPS_SCHEMA,
            applications: Vec::new(),
        }
    };
    let doc = format!("apps file '{}'", path.display());
    for p in &points {
        check_point(p, &doc)?;
    }
    // An older file is written again in today's layout.
    f.schema = APPS_SCHEMA;
    // A program profiled again loses its old function, loop and phase
    // points, asked for again or not: they were of another run.
    let programs: Vec<String> = (points.iter())
        .filter_map(|p| match &p.of {
            Of::Program { .. } => Some(p.name.clone()),
            _ => p.function().map(|f| f.program.clone()),
        })
        .collect();
    f.applications.retain(|a| {
        !(a.function().map(|f| &f.program)).is_some_and(|p| programs.contains(p))
            && !(a.phase().map(|x| &x.program)).is_some_and(|p| programs.contains(p))
    });
    // Likewise its old ranks: it may run on fewer.
    let launched: Vec<&str> = (points.iter().filter(|p| p.mpi().is_some()))
        .map(|p| p.name.as_str())
        .collect();
    (f.applications).retain(|a| {
        !a.rank()
            .is_some_and(|r| launched.contains(&r.program.as_str()))
    });
    // And its ranks' phases (their program is the rank's point).
    let of_rank = |program: &str| {
        (program.rsplit_once("/rank")).is_some_and(|(p, k)| {
            launched.contains(&p) && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())
        })
    };
    (f.applications).retain(|a| !a.phase().is_some_and(|x| of_rank(&x.program)));
    // And its old GPU kernels when its GPU work is profiled again.
    let on_gpu: Vec<&str> = (points.iter().filter_map(AppPoint::kernel))
        .map(|k| k.program.as_str())
        .collect();
    (f.applications).retain(|a| {
        !a.kernel()
            .is_some_and(|k| on_gpu.contains(&k.program.as_str()))
    });
    // A point is its name and, for a function or a kernel, its program's.
    let program = |a: &AppPoint| {
        (a.function().map(|f| f.program.clone())).or(a.kernel().map(|k| k.program.clone()))
    };
    for p in points {
        f.applications
            .retain(|a| a.name != p.name || program(a) != program(&p));
        f.applications.push(p);
    }
    let text = serde_yaml::to_string(&f).map_err(|e| Error::Io(e.to_string()))?;
    crate::files::write_atomic(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::apps::FunctionInfo;

    #[test]
    fn a_program_profiled_again_without_functions_keeps_none_of_its_old_ones() {
        let dir = crate::files::scratch_dir("stale").unwrap();
        let f = dir.join("apps.yaml");
        let function = |name: &str, program: &str| AppPoint {
            of: Of::Function(FunctionInfo::new(program, "app", 0.5, 50)),
            ..AppPoint::new(name, 1e9, 1e9, 0.5)
        };
        let phase = |program: &str| AppPoint {
            of: Of::Phase(crate::results::apps::PhaseInfo {
                program: program.into(),
                index: 1,
                start: 0.0,
                end: 1.0,
                functions: vec![],
                windows: vec![],
            }),
            ..AppPoint::new(format!("{program}: phase 1"), 1e9, 1e9, 1.0)
        };
        let first = vec![
            AppPoint::new("app", 1e9, 1e9, 1.0),
            function("f", "app"),
            phase("app"),
            AppPoint::new("other", 1e9, 1e9, 1.0),
            function("g", "other"),
            phase("other"),
        ];
        add_points(&f, first).unwrap();
        add_points(&f, vec![AppPoint::new("app", 2e9, 1e9, 1.0)]).unwrap();
        let names: Vec<String> = (load(&f).unwrap().applications.into_iter())
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["other", "g", "other: phase 1", "app"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_programs_gpu_work_profiled_again_drops_its_old_kernels_only() {
        let dir = crate::files::scratch_dir("stale-gpu").unwrap();
        let f = dir.join("apps.yaml");
        let text = include_str!("../../../tests/fixtures/ncu/intensity.csv");
        let kernels = crate::profile::gpu::points(text, "app", None)
            .unwrap()
            .points;
        let mut first = kernels.clone();
        // A CPU point named like a kernel, and another program's kernel.
        first.push(AppPoint::new("intensity<1>", 1e9, 1e9, 1.0));
        let mut other = kernels[0].clone();
        if let Of::Kernel(k) = &mut other.of {
            k.program = "other".into();
        }
        first.push(other);
        add_points(&f, first).unwrap();
        // Profiled again, one kernel ran.
        add_points(&f, vec![kernels[2].clone()]).unwrap();
        let left: Vec<(String, Option<String>)> = (load(&f).unwrap().applications.iter())
            .map(|p| (p.name.clone(), p.kernel().map(|k| k.program.clone())))
            .collect();
        let want = [
            ("intensity<1>", None),
            ("intensity<1>", Some("other")),
            ("intensity<64>", Some("app")),
        ];
        let want: Vec<(String, Option<String>)> = (want.iter())
            .map(|(n, p)| (n.to_string(), p.map(str::to_string)))
            .collect();
        assert_eq!(left, want);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
