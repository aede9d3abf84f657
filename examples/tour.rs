//! A tour of locus: what it sees of this machine.
//!
//! ```text
//! cargo run --release --example tour
//! ```
//!
//! Prints the detected topology, then the same for a virtual many-core
//! machine (2 NUMA nodes x 2 LLCs x 2 clusters x 4 cores) so the tree has
//! something to show on a small machine.

use locus::Topology;

fn main() {
    let here = Topology::detect();
    println!("== This machine\n{here}");
    let spec = "numa:2 llc:2 cluster:2 core:4";
    match Topology::synthetic(spec) {
        Ok(t) => println!("== A virtual machine: {spec}\n{t}"),
        Err(e) => eprintln!("tour: {e}"),
    }
}
