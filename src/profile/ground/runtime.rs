//! The MPI runtimes' own code: what a rank does in their libraries (its
//! waits for the other ranks among it) is told apart from the program's.

/// The files of MPI runtimes' code (Open MPI, MPICH, PMIx, the fabrics'
/// libraries and what they load), by the start of their file names.
const RUNTIME: &[&str] = &[
    "libmpi",
    "libopen-pal",
    "libopen-rte",
    "mca_",
    "libmca_",
    "libpmix",
    "libpmi",
    "libucp",
    "libucs",
    "libuct",
    "libucm",
    "libfabric",
    "libpsm",
    "libibverbs",
    "libmlx",
    "libhwloc",
    "libevent",
    "libmpich",
    "libxpmem",
    "libknem",
];

/// Whether the file at `module` is an MPI runtime's.
pub fn in_runtime(module: &str) -> bool {
    let name = std::path::Path::new(module)
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    RUNTIME.iter().any(|r| name.starts_with(r))
}
