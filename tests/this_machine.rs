//! The running machine's sysfs (Linux only).

#[cfg(target_os = "linux")]
#[test]
fn this_machine_reads_like_its_online_file() {
    use locus::{CpuSet, Topology};
    let t = Topology::from_sysfs("/").expect("/sys readable");
    let online: CpuSet = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .expect("online file")
        .parse()
        .expect("cpulist");
    assert_eq!(t.online(), online);
    assert!(!t.llcs().is_empty());
    let d = Topology::detect();
    assert_eq!(d.online(), online);
    // std's available_parallelism is the affinity count, possibly lowered by
    // a cgroup CPU quota; our allowed set is affinity ∩ cpuset.
    let ap = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        d.allowed().len() >= ap,
        "allowed {} < available_parallelism {ap}",
        d.allowed()
    );
    // The project's 2-CPU development machines share one L3.
    let l3 = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list");
    if online.len() == 2 && l3.is_ok_and(|s| s.trim() == "0-1") {
        assert_eq!(
            (t.pus().len(), t.l3_cpusets().len(), t.llcs().len()),
            (2, 1, 1)
        );
    }
    println!("{d}");
}
