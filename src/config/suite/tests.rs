//! The suite's plan as `SuitePlan::from_args` builds it: steps, counts,
//! warnings and the flags its mistakes name.

use clap::Parser;

use crate::cli::SuiteArgs;
use crate::config::SuitePlan;
use crate::config::suite::{OutputMode, SuiteWarning};
use crate::workload::ops::RandInt;

fn args(line: &str) -> SuiteArgs {
    let mut full = vec!["suite"];
    full.extend(line.split_whitespace());
    SuiteArgs::try_parse_from(full).unwrap()
}

#[test]
fn lrange_is_prepared_once_before_the_first_lrange_and_marked_apart() {
    let p = SuitePlan::from_args(&args("-t lrange_600,set,lrange_100 -n 100 -c 10")).unwrap();
    let names: Vec<String> = p.steps.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "SET",
            "LPUSH (needed to benchmark LRANGE)",
            "LRANGE_100",
            "LRANGE_600"
        ]
    );
    assert!(p.steps[1].preparation && !p.steps[2].preparation);
    // -n 100 would leave LRANGE_600 a 100-element list: the preparation
    // pushes 600 (60 per connection), the tests send -n.
    assert_eq!(p.steps[1].config.stop, crate::config::Stop::Requests(60));
    assert_eq!(p.steps[2].config.stop, crate::config::Stop::Requests(10));
}

#[test]
fn c_is_the_total_split_over_threads_and_n_the_total_per_test() {
    let p = SuitePlan::from_args(&args("-t get -c 50 -n 1000 --threads 5 -r 1000")).unwrap();
    let c = &p.steps[0].config;
    assert_eq!((c.threads, c.clients), (5, 10));
    assert_eq!(c.stop, crate::config::Stop::Requests(20));
    assert_eq!(c.ops.rand_int, RandInt::Below(1000));
    assert!(c.ops.rows[0].counts_hits);
    assert!(p.warnings.is_empty());
}

#[test]
fn without_r_every_rand_int_is_literal_and_a_warning_says_so() {
    let p = SuitePlan::from_args(&args("-t set,ping")).unwrap();
    assert_eq!(p.steps[0].config.ops.rand_int, RandInt::Literal);
    assert_eq!(p.warnings, [SuiteWarning::OneKey]);
    // PING has no __rand_int__: no trap to warn about.
    assert!(
        SuitePlan::from_args(&args("-t ping"))
            .unwrap()
            .warnings
            .is_empty()
    );
}

#[test]
fn n_that_does_not_divide_by_c_is_rounded_up_with_a_warning() {
    let p = SuitePlan::from_args(&args("-t ping -n 101 -c 10")).unwrap();
    assert_eq!(
        p.warnings,
        [SuiteWarning::RoundedRequests {
            asked: 101,
            sent: 110
        }]
    );
}

#[test]
fn csv_wins_over_q_as_in_redis_benchmark() {
    assert_eq!(
        SuitePlan::from_args(&args("-q --csv")).unwrap().output,
        OutputMode::Csv
    );
    assert_eq!(
        SuitePlan::from_args(&args("-q")).unwrap().output,
        OutputMode::Quiet
    );
    assert_eq!(
        SuitePlan::from_args(&args("")).unwrap().output,
        OutputMode::Table
    );
}

#[test]
fn mistakes_name_the_flag_and_the_fix() {
    for (line, flag, fix) in [
        ("-t set,hgetall", "-t", "choose from"),
        ("-k 2", "-k", "-k 1"),
        ("--precision 7", "--precision", "--precision 3"),
        ("--sequential", "--sequential", "-r"),
        ("--rfr yes", "--rfr", "--cluster"),
        ("--cluster --rfr maybe", "--rfr", "--rfr yes"),
        ("--insecure", "--insecure", "--tls"),
        (
            "--tls --cacert a --cacertdir b",
            "--cacertdir",
            "one of them",
        ),
        ("--rps -5", "--rps", "above 0"),
        ("-x", "-x", "-x set mykey"),
        ("-I set k v", "-I", "drop one"),
        ("-c 0", "-c", "-c 50"),
        ("-c 10 --threads 3", "-c", "-c 9"),
        ("--threads 0", "--threads", "--threads 1"),
        ("-n 0", "-n", "-n 100000"),
        ("-n 10 --test-time 5", "--test-time", "one of them"),
        ("-r 0", "-r", "-r 100000"),
        ("-d 0", "-d", "-d 3"),
        ("-P 0", "-P", ""),
        ("-n 10 ./x.sh", "./x.sh", "-t NAME"),
        // After -a, the stray word may be a password: named by -a, not shown.
        ("-a bench CANARY-suite-3", "-a", "--user"),
    ] {
        let e = SuitePlan::from_args(&args(line)).unwrap_err();
        assert_eq!(e.flag, flag, "{line}: {e}");
        assert!(e.message.contains(fix), "{line}: {e}");
        assert!(!e.to_string().contains("CANARY"), "{line}: {e}");
    }
}

#[test]
fn zadd_is_sent_with_score_zero_without_r_and_a_drawn_score_with_it() {
    let literal = SuitePlan::from_args(&args("-t zadd")).unwrap();
    assert_eq!(
        literal.steps[0].command,
        "ZADD myzset 0 element:__rand_int__"
    );
    assert_eq!(
        literal.steps[0].config.ops.ops[0].spec.text,
        literal.steps[0].command
    );
    let drawn = SuitePlan::from_args(&args("-t zadd -r 1000")).unwrap();
    assert_eq!(
        drawn.steps[0].command,
        "ZADD myzset __rand_int__ element:__rand_int__"
    );
}

#[test]
fn a_command_after_the_flags_is_the_one_test_named_as_typed() {
    let p = SuitePlan::from_args(&args(
        "-n 100 -c 4 -t get script load redis.call('set','foo','bar')",
    ))
    .unwrap();
    assert_eq!(p.steps.len(), 1, "-t is ignored, as in redis-benchmark");
    let s = &p.steps[0];
    assert!(s.custom && !s.preparation);
    assert_eq!(s.name(), "script load redis.call('set','foo','bar')");
    assert_eq!(s.config.stop, crate::config::Stop::Requests(25));
    let op = &s.config.ops.ops[0];
    assert_eq!(op.spec.args.len(), 3);
    // Redis 7 counts SCRIPT LOAD as cmdstat_script|load.
    assert_eq!(s.config.ops.rows[0].witness, "script|load");
    let single = SuitePlan::from_args(&args("-r 10 incr c:__rand_int__")).unwrap();
    assert_eq!(single.steps[0].config.ops.rows[0].witness, "incr");
    assert_eq!(single.steps[0].config.ops.rand_int, RandInt::Below(10));
}

#[test]
fn x_appends_stdin_as_the_last_argument_but_not_to_the_title() {
    let mut a = args("-n 1 -x set mykey");
    a.stdin_value = Some(b"value\n".to_vec());
    let p = SuitePlan::from_args(&a).unwrap();
    assert_eq!(p.steps[0].name(), "set mykey");
    let spec = &p.steps[0].config.ops.ops[0].spec;
    assert_eq!(spec.args.len(), 3);
    assert_eq!(
        spec.args[2],
        vec![crate::protocol::command::Part::Literal(b"value\n".to_vec())]
    );
}

#[test]
fn connection_flags_become_kvbenchs_own() {
    let p = SuitePlan::from_args(&args("-t get -k 0 -3 -c 4 --rps 1000 --precision 1")).unwrap();
    let c = &p.steps[0].config;
    assert_eq!(c.faults.reconnect_interval, 1);
    assert_eq!(c.target.protocol, crate::protocol::wire::Protocol::Resp3);
    assert_eq!(p.precision, 1);
    let seq = SuitePlan::from_args(&args("-t set -r 500 --sequential")).unwrap();
    assert_eq!(seq.steps[0].config.ops.rand_int, RandInt::Sequential(500));
    let idle = SuitePlan::from_args(&args("-I -c 7 --test-time 2")).unwrap();
    assert!(idle.steps.is_empty());
    let plan = idle.idle.unwrap();
    assert_eq!(plan.connections, 7);
    assert_eq!(plan.wait, std::time::Duration::from_secs(2));
}
