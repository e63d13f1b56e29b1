//! Links the `agent-handover` binary at a fixed address on Linux (not as a
//! position-independent executable). `check` runs at every session start and
//! is held to 1.5x a minimal Rust program (benches/cli.rs); a PIE has its
//! ~17,000 pointers in static tables relocated by the loader at every start,
//! writing ~75 pages that were otherwise never touched, which was a third of
//! `check`'s page faults. The code itself stays position-independent.

fn main() {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
