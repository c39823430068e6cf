fn main() {
    std::process::exit(carmbench::cli::main());
}
