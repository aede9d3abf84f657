//! Empty: it exists because the manifest's `links = "rayon-core"` needs a
//! build script.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
