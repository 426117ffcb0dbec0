//! Every Skein feature in the generated cores (issue 18): the optional arguments on the port,
//! output lengths of several Output blocks, tree hashing arranged by the host. Each run checks
//! the digests against the library (`skeinhw_skein::hash`) or the official vectors, and the
//! VCD against the golden trace cycle for cycle.
//!
//! The normal suite is cheap (Icarus; one preset per size, `long-pipe-512` for trees); the
//! full matrix (every preset in every size in Icarus, every preset in Verilator, every preset's
//! lean core in Icarus and, with fewer features, in Verilator) runs with `SKEINHW_SLOW=1`.

mod common;

use skeinhw_rtl::{
    Features, Options, Simulator, build, build_cached, compare_vcd, compare_vcd_except,
    generate_core, generate_for, lean_omitted, run, stimulus_jobs,
};
use skeinhw_sched::Schedule;
use skeinhw_sched::sim::{Job, MemorySink, simulate};
use skeinhw_skein::kat::{GoldenEntry, parse_golden};
use skeinhw_skein::{Params, TreeParams};

fn slow() -> bool {
    std::env::var_os("SKEINHW_SLOW").is_some_and(|v| v == "1")
}

fn vectors() -> &'static [GoldenEntry] {
    static V: std::sync::OnceLock<Vec<GoldenEntry>> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../vectors/skein/skein_golden_kat.txt"
        );
        parse_golden(&std::fs::read_to_string(path).expect("vectors"))
    })
}

/// One message and what it must give (from the library or the official vectors).
struct Case<'a> {
    job: Job<'a>,
    want: Vec<u8>,
    what: String,
}

/// A case whose expected digest is the library's.
fn library_case<'a>(schedule: &Schedule, job: Job<'a>, what: &str) -> Case<'a> {
    let want = skeinhw_skein::hash(
        schedule.size().bits() as usize,
        job.out_bits,
        job.message,
        job.msg_bits,
        &job.params,
    )
    .expect("the library hashes it");
    Case {
        job,
        want,
        what: what.to_owned(),
    }
}

/// Generates the core of `schedule` for `features`, runs `cases` through it (as many at once as
/// it has streams) and checks every digest and the trace.
fn check(schedule: &Schedule, features: Features, sim: Simulator, cases: &[Case<'_>]) {
    check_core(schedule, features, Options::default(), sim, cases);
}

/// [`check`] of the core `options` make: a lean core's trace compared on every field it has.
fn check_core(
    schedule: &Schedule,
    features: Features,
    options: Options,
    sim: Simulator,
    cases: &[Case<'_>],
) {
    let name = format!(
        "{}{} ({}, out {} bits, tree {:?})",
        schedule.name(),
        if options.lean { " lean" } else { "" },
        sim.as_str(),
        features.out_bits,
        features.tree
    );
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("rtl");
    std::fs::create_dir(&src).unwrap();
    generate_core(schedule, features, options)
        .expect("generate")
        .write_into(&src)
        .unwrap();
    let built = match sim {
        Simulator::Icarus => build(sim, &src, &work.path().join("build"), None),
        Simulator::Verilator => build_cached(sim, &src, &common::cache_root()),
    }
    .unwrap_or_else(|e| panic!("{name}: build: {e}"));
    let streams = schedule.blocks_in_flight() as usize;
    let mut compared = 0;
    for batch in cases.chunks(streams) {
        let jobs: Vec<Job<'_>> = batch.iter().map(|c| c.job).collect();
        let input = work.path().join("input.txt");
        std::fs::write(&input, stimulus_jobs(schedule, features, &jobs).unwrap()).unwrap();
        let vcd = work.path().join("dump.vcd");
        let out = run(&built, &input, &vcd).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sink = MemorySink::new();
        let report = simulate(schedule, &jobs, &mut sink).expect("golden");
        let header = sink.header.as_ref().unwrap();
        let (scope, prefix) = (skeinhw_rtl::SCOPE, sim.vcd_prefix());
        let diff = if options.lean {
            let omitted = lean_omitted(header.slots);
            compare_vcd_except(header, &sink.records, &vcd, scope, prefix, &omitted)
        } else {
            compare_vcd(header, &sink.records, &vcd, scope, prefix)
        };
        if let Some(d) = diff.expect("compare") {
            panic!("{name}: {d}");
        }
        assert_eq!(out.cycles, report.cycles, "{name}: cycles");
        for (s, c) in batch.iter().enumerate() {
            let got = out
                .output_bytes(s as u32, features.out_bits)
                .unwrap_or_else(|| panic!("{name}: {}: too few Output blocks", c.what));
            assert_eq!(got, c.want, "{name}: {}", c.what);
            compared += 1;
        }
    }
    assert_eq!(compared, cases.len(), "{name}: every case compared");
}

const MESSAGE: &[u8] = b"The optional arguments of Skein, each a UBI call of its own type.";

/// Messages with each optional argument (and all of them with a key), at `out_bits`.
fn argument_cases(schedule: &Schedule, out_bits: u64) -> Vec<Case<'static>> {
    let job = |params: Params<'static>| Job {
        message: MESSAGE,
        msg_bits: MESSAGE.len() as u64 * 8 - 3,
        out_bits,
        params,
    };
    let long = &[0x5c; 300][..];
    let all = [
        (
            "personalization",
            Params {
                personalization: Some(b"20261125 skeinhw@example.org rtl"),
                ..Params::default()
            },
        ),
        (
            "public key (longer than a block)",
            Params {
                public_key: Some(long),
                ..Params::default()
            },
        ),
        (
            "key identifier",
            Params {
                key_id: Some(b"kid"),
                ..Params::default()
            },
        ),
        (
            "nonce (empty)",
            Params {
                nonce: Some(b""),
                ..Params::default()
            },
        ),
        (
            "key and every argument",
            Params {
                key: b"a MAC key",
                personalization: Some(b"p"),
                public_key: Some(b"pk"),
                key_id: Some(long),
                nonce: Some(b"nonce"),
                tree: None,
            },
        ),
    ];
    all.into_iter()
        .map(|(what, p)| library_case(schedule, job(p), what))
        .collect()
}

fn preset(name: &str) -> Schedule {
    skeinhw_sched::preset(name).unwrap()
}

/// The presets of the normal suite, one per size.
fn one_per_size() -> [Schedule; 3] {
    [
        preset("long-iter-256"),
        preset("ath-1r"),
        preset("long-iter-1024"),
    ]
}

const OUT_LENGTHS: [u64; 5] = [8, 264, 520, 1032, 2056];

#[test]
fn optional_arguments_and_output_lengths_in_icarus() {
    // Each output length on one of the three sizes (all on every size with SKEINHW_SLOW=1),
    // each with every optional argument.
    let presets = one_per_size();
    for (i, out_bits) in OUT_LENGTHS.into_iter().enumerate() {
        let on: Vec<&Schedule> = if slow() {
            presets.iter().collect()
        } else {
            vec![&presets[i % 3]]
        };
        for s in on {
            let features = Features {
                out_bits,
                tree: None,
            };
            check(s, features, Simulator::Icarus, &argument_cases(s, out_bits));
        }
    }
}

/// The official tree vectors of `size` with `tree` and `out_bits`.
fn tree_vectors(size: usize, tree: TreeParams, out_bits: u64) -> Vec<Case<'static>> {
    vectors()
        .iter()
        .filter(|e| {
            e.state_bits == size && e.tree == Some(tree) && e.out_bits == out_bits && !e.mac
        })
        .map(|e| Case {
            job: Job {
                message: &e.message,
                msg_bits: e.msg_bits,
                out_bits,
                params: Params {
                    tree: Some(tree),
                    ..Params::default()
                },
            },
            want: e.result.clone(),
            what: format!("official vector at line {}", e.line),
        })
        .collect()
}

/// The (tree, output length) pairs of the official vectors of `size`.
fn tree_shapes(size: usize) -> Vec<(TreeParams, u64)> {
    let mut out: Vec<(TreeParams, u64)> = Vec::new();
    for e in vectors().iter().filter(|e| e.state_bits == size && !e.mac) {
        if let Some(t) = e.tree
            && !out.contains(&(t, e.out_bits))
        {
            out.push((t, e.out_bits));
        }
    }
    out
}

/// Messages of several tree shapes (one leaf, a partial last leaf, several levels, the height
/// limit) for `tree`, beside the official vectors.
fn tree_cases(schedule: &Schedule, tree: TreeParams, out_bits: u64) -> Vec<Case<'static>> {
    static DATA: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let data = DATA.get_or_init(|| (0..4096u32).map(|i| (i * 7 + 3) as u8).collect());
    // (two shapes in the normal suite, beside the official vectors; six with SKEINHW_SLOW=1)
    let nb = schedule.words() as u64 * 8;
    let leaf = nb << tree.leaf;
    let mut lengths = if slow() {
        vec![0, 1, leaf, leaf + 1, 5 * leaf - 7, 9 * leaf]
    } else {
        vec![0, leaf + 1]
    };
    lengths.retain(|&l| l <= data.len() as u64);
    let mut cases: Vec<Case<'static>> = lengths
        .into_iter()
        .map(|bytes| {
            let job = Job {
                message: &data[..bytes as usize],
                msg_bits: bytes * 8,
                out_bits,
                params: Params {
                    tree: Some(tree),
                    ..Params::default()
                },
            };
            library_case(schedule, job, &format!("{bytes}-byte message"))
        })
        .collect();
    // A bit-length message with a personalization and a key: the tree after the arguments.
    let job = Job {
        message: &data[..300],
        msg_bits: 2399,
        out_bits,
        params: Params {
            key: b"k",
            personalization: Some(b"tree"),
            tree: Some(tree),
            ..Params::default()
        },
    };
    cases.push(library_case(
        schedule,
        job,
        "keyed, personalized, 2399 bits",
    ));
    cases
}

#[test]
fn official_tree_vectors_and_more_shapes_in_icarus() {
    // Long's tree-hashing pipeline with the first tree of the official Skein-512 vectors, many
    // messages in flight at once; the other trees on ath-1r (Icarus takes ~4x as long per cycle
    // of long-pipe-512). With SKEINHW_SLOW=1 every tree and output length on long-pipe-512.
    let pipe = preset("long-pipe-512");
    let iter = preset("ath-1r");
    let shapes = tree_shapes(512);
    assert!(shapes.len() >= 3, "tree vectors of Skein-512: {shapes:?}");
    let mut first = true;
    for (tree, out_bits) in shapes {
        if !slow() && out_bits != 512 {
            continue;
        }
        let s = if first || slow() { &pipe } else { &iter };
        first = false;
        let mut cases = tree_vectors(512, tree, out_bits);
        assert!(!cases.is_empty());
        cases.extend(tree_cases(s, tree, out_bits));
        let f = Features {
            out_bits,
            tree: Some(tree),
        };
        check(s, f, Simulator::Icarus, &cases);
    }
}

#[test]
fn lean_cores_run_trees_keys_and_the_optional_arguments_in_icarus() {
    // A lean core of one stream sums each block's tweak Position when the block is loaded
    // (a first block from its tree offset, a later one from where the stream's last ended):
    // trees, several blocks, a MAC key and the arguments exercise every start. The baseline
    // with its rotating key, a shared datapath with its pooled adders, and ath-8r, whose two
    // key injections read the rotating key a step apart and whose first reads the key
    // on the issue cycle.
    for (name, size) in [
        ("long-iter-512", 512),
        ("long-split-256", 256),
        ("ath-8r", 512),
    ] {
        let s = preset(name);
        let shapes = tree_shapes(size);
        assert!(!shapes.is_empty(), "tree vectors of Skein-{size}");
        for (tree, out_bits) in shapes.into_iter().filter(|t| t.1 == size as u64) {
            let mut cases = tree_vectors(size, tree, out_bits);
            assert!(!cases.is_empty());
            cases.extend(tree_cases(&s, tree, out_bits));
            let f = Features {
                out_bits,
                tree: Some(tree),
            };
            check_core(&s, f, Options { lean: true }, Simulator::Icarus, &cases);
        }
        let f = Features {
            out_bits: 264,
            tree: None,
        };
        let cases = argument_cases(&s, 264);
        check_core(&s, f, Options { lean: true }, Simulator::Icarus, &cases);
    }
}

/// Every output length with the optional arguments, then every tree shape with the official
/// tree vectors and more, on the core of `schedule` that `options` make.
fn every_feature(s: &Schedule, options: Options, sim: Simulator) {
    let size = s.size().bits() as usize;
    for out_bits in OUT_LENGTHS {
        let f = Features {
            out_bits,
            tree: None,
        };
        check_core(s, f, options, sim, &argument_cases(s, out_bits));
    }
    for (tree, out_bits) in tree_shapes(size) {
        let mut cases = tree_vectors(size, tree, out_bits);
        cases.extend(tree_cases(s, tree, out_bits));
        let f = Features {
            out_bits,
            tree: Some(tree),
        };
        check_core(s, f, options, sim, &cases);
    }
}

#[test]
fn every_design_runs_every_feature_in_icarus_slow() {
    if !slow() {
        return;
    }
    for s in skeinhw_rtl::all_designs() {
        every_feature(&s, Options::default(), Simulator::Icarus);
    }
}

#[test]
fn every_preset_runs_every_feature_in_verilator_slow() {
    if !slow() {
        return;
    }
    for s in skeinhw_sched::presets() {
        every_feature(&s, Options::default(), Simulator::Verilator);
    }
}

#[test]
fn every_preset_runs_every_feature_lean_slow() {
    if !slow() {
        return;
    }
    let lean = Options { lean: true };
    for s in skeinhw_sched::presets() {
        every_feature(&s, lean, Simulator::Icarus);
        // Verilator (a build takes ten times Icarus's): the arguments at 1032 bits (several
        // Output blocks) and the first tree shape with its official vectors.
        let size = s.size().bits() as usize;
        let f = Features {
            out_bits: 1032,
            tree: None,
        };
        check_core(&s, f, lean, Simulator::Verilator, &argument_cases(&s, 1032));
        let (tree, out_bits) = *tree_shapes(size)
            .first()
            .unwrap_or_else(|| panic!("tree vectors of Skein-{size}"));
        let mut cases = tree_vectors(size, tree, out_bits);
        cases.extend(tree_cases(&s, tree, out_bits));
        let f = Features {
            out_bits,
            tree: Some(tree),
        };
        check_core(&s, f, lean, Simulator::Verilator, &cases);
    }
}

#[test]
fn bad_combinations_are_refused_with_one_line() {
    let s = preset("long-iter-256");
    let plain = Features::plain(&s);
    let tree = TreeParams::new(1, 1, 2).unwrap();
    let msg = b"abc";
    let job = |out_bits, tree| Job {
        message: msg,
        msg_bits: 24,
        out_bits,
        params: Params {
            tree,
            ..Params::default()
        },
    };
    let one_line = |e: skeinhw_rtl::RtlError, has: &str| {
        let m = e.to_string();
        assert!(!m.contains('\n') && m.contains(has), "{m}");
    };
    // Another output length or tree than the core was built for.
    one_line(
        stimulus_jobs(&s, plain, &[job(8, None)]).unwrap_err(),
        "built for 256",
    );
    one_line(
        stimulus_jobs(&s, plain, &[job(256, Some(tree))]).unwrap_err(),
        "tree 1,1,2",
    );
    let tree_core = Features {
        out_bits: 256,
        tree: Some(tree),
    };
    one_line(
        stimulus_jobs(&s, tree_core, &[job(256, None)]).unwrap_err(),
        "tree none",
    );
    // Cores that cannot be built.
    for out_bits in [0, skeinhw_rtl::MAX_CORE_OUT_BITS + 1] {
        let f = Features {
            out_bits,
            tree: None,
        };
        one_line(generate_for(&s, f).unwrap_err(), "output length");
    }
    let bad_tree = Features {
        out_bits: 256,
        tree: Some(TreeParams {
            leaf: 1,
            fan_out: 1,
            max_height: 1,
        }),
    };
    one_line(generate_for(&s, bad_tree).unwrap_err(), "tree parameters");
    // More messages than streams, where they must go one per stream (`stimulus_jobs` queues
    // them back to back instead).
    let m = skeinhw_rtl::Message {
        data: b"abc",
        bits: 24,
        key: &[],
    };
    one_line(skeinhw_rtl::stimulus(&s, &[m, m]).unwrap_err(), "stream");
}
