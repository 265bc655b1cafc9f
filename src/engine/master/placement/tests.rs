//! The placement decision, one case per reason, and the `/proc` readers.

use super::{Facts, Placement, Reason, ServerCpus, allowed_cpus, cpu_list, decide};
use crate::config::Pinning;

fn server(cpus: &[usize]) -> ServerCpus {
    ServerCpus {
        pid: 4242,
        cpus: cpus.to_vec(),
        threads: 5,
    }
}

fn auto(threads: usize, available: &[usize], local: bool, s: Option<&ServerCpus>) -> Placement {
    decide(&Facts {
        pinning: &Pinning::Auto,
        threads,
        available,
        local_server: local,
        server: s,
    })
}

#[test]
fn a_server_pinned_to_cpu_0_leaves_the_other_cpus_to_the_client() {
    let s = server(&[0]);
    let p = auto(4, &[0, 1, 2], true, Some(&s));
    assert_eq!(p.reason, Reason::ApartFromServer);
    assert_eq!(p.threads, vec![Some(1), Some(2), Some(1), Some(2)]);
    assert!(p.overlap().is_empty());
}

#[test]
fn a_server_that_may_run_anywhere_means_no_pinning() {
    let s = server(&[0, 1]);
    let p = auto(20, &[0, 1], true, Some(&s));
    assert_eq!(p.reason, Reason::ServerMayUseEveryCpu);
    assert_eq!(p.threads, vec![None; 20]);
    assert_eq!(p.overlap(), vec![0, 1]);
}

#[test]
fn an_unknown_local_server_means_no_pinning() {
    let p = auto(3, &[0, 1], true, None);
    assert_eq!(p.reason, Reason::ServerUnknown);
    assert_eq!(p.threads, vec![None; 3]);
}

#[test]
fn a_remote_server_gets_every_cpu_round_robin() {
    let p = auto(5, &[0, 1], false, None);
    assert_eq!(p.reason, Reason::RemoteServer);
    assert_eq!(p.threads, vec![Some(0), Some(1), Some(0), Some(1), Some(0)]);
    let text = p.to_string();
    assert!(
        text.contains("5 client threads spread over CPUs 0-1, 2 per CPU (some 3)"),
        "{text}"
    );
}

#[test]
fn one_cpu_leaves_nothing_to_choose() {
    let p = auto(2, &[3], false, None);
    assert_eq!(p.reason, Reason::OneCpu);
    assert_eq!(p.threads, vec![None, None]);
}

#[test]
fn flags_decide_on_their_own_and_an_overlap_is_named() {
    let s = server(&[0]);
    let cpus = Pinning::Cpus(vec![0, 1]);
    let p = decide(&Facts {
        pinning: &cpus,
        threads: 2,
        available: &[0, 1],
        local_server: true,
        server: Some(&s),
    });
    assert_eq!(p.reason, Reason::CpusFlag);
    assert_eq!(p.threads, vec![Some(0), Some(1)]);
    assert!(
        p.to_string()
            .contains("although the server may also run on CPU 0"),
        "{p}"
    );
    let off = decide(&Facts {
        pinning: &Pinning::Off,
        threads: 2,
        available: &[0, 1],
        local_server: true,
        server: Some(&s),
    });
    assert_eq!(off.reason, Reason::NoPinFlag);
    assert_eq!(off.threads, vec![None, None]);
}

#[test]
fn split_advice_names_this_machines_cpus_and_the_pid() {
    let s = server(&[0, 1, 2, 3]);
    let p = auto(2, &[0, 1, 2, 3], true, Some(&s));
    assert_eq!(
        p.split_advice().as_deref(),
        Some("taskset -acp 0 4242 for the server and --cpus 1-3 for kvbench")
    );
    assert_eq!(auto(1, &[0], true, None).split_advice(), None);
}

#[test]
fn cpu_lists_collapse_runs() {
    assert_eq!(cpu_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
    assert_eq!(cpu_list(&[5]), "5");
    assert_eq!(cpu_list(&[]), "");
}

#[test]
fn allowed_cpus_read_from_a_status_text() {
    let status =
        "Name:\tredis-server\nCpus_allowed:\t5\nCpus_allowed_list:\t0,2-3\nMems_allowed:\t1\n";
    assert_eq!(allowed_cpus(status), Some(vec![0, 2, 3]));
    assert_eq!(allowed_cpus("Name:\tx\n"), None);
}

#[test]
fn this_process_is_read_from_proc_and_a_wrong_executable_is_refused() {
    let pid = std::process::id();
    let exe = std::env::current_exe().unwrap();
    let me = ServerCpus::of_process(pid, exe.to_str()).expect("this process is readable");
    assert_eq!(me.pid, pid);
    assert!(me.threads >= 1);
    assert!(!me.cpus.is_empty());
    assert_eq!(
        ServerCpus::of_process(pid, Some("/usr/bin/redis-server")),
        None
    );
}
