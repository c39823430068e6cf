// The variadic exec functions (execl, execlp, execle) are C: stable Rust
// cannot define a variadic function.
fn main() {
    println!("cargo:rerun-if-changed=src/variadic.c");
    cc::Build::new()
        .file("src/variadic.c")
        .warnings(true)
        .compile("follow_variadic");
}
