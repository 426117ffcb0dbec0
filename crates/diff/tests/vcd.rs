//! Our VCD reader against wellen's on random VCDs: the same samples at the same edges, or
//! both refusing the file. wellen is the independent implementation here (the oracle).

use std::io::Cursor;

use proptest::prelude::*;
use skeinhw_diff::wave::{
    Bits, Probe, WaveOptions, sample_rising_edges_from, sample_rising_edges_with_wellen_from,
};
use skeinhw_diff::{VcdPlan, with_vcd_plan};

/// A random VCD: signals (with aliases), scopes, ids of one to three characters, a body of
/// time steps with scalar and vector changes (x/z, short vectors), `$dumpvars`, comments.
#[derive(Clone, Debug)]
struct Case {
    text: String,
    probes: Vec<String>,
    stop_after: Option<u64>,
}

const ID_CHARS: &[u8] = b"!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

fn id_of(n: usize) -> String {
    // Several characters for larger n, as simulators number them.
    let mut n = n;
    let mut s = String::new();
    loop {
        s.push(ID_CHARS[n % ID_CHARS.len()] as char);
        n /= ID_CHARS.len();
        if n == 0 {
            break;
        }
        n -= 1;
    }
    s
}

fn value(width: u32, r: &mut impl FnMut(u32) -> u32) -> String {
    const STATES: [char; 8] = ['0', '1', '0', '1', 'x', 'z', 'X', 'Z'];
    let len = 1 + r(width);
    let two_state = r(4) != 0;
    (0..len)
        .map(|_| {
            if two_state {
                STATES[r(2) as usize]
            } else {
                STATES[r(8) as usize]
            }
        })
        .collect()
}

fn case(seed: u64) -> Case {
    let mut x = seed | 1;
    let mut r = move |n: u32| -> u32 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % u64::from(n.max(1))) as u32
    };
    const WIDTHS: [u32; 8] = [1, 1, 2, 3, 8, 64, 65, 130];
    let n = 1 + r(6) as usize;
    let id_base = r(3) as usize * 150; // one-, two- and three-character ids
    let mut ids = Vec::new();
    let mut widths = Vec::new();
    let mut text = String::new();
    if r(2) == 0 {
        text.push_str("$date\n  today\n$end\n$version\n  random\n$end\n");
    }
    text.push_str("$timescale 1ps $end\n$scope module top $end\n");
    text.push_str(&format!("$var wire 1 {} clk $end\n", id_of(id_base)));
    ids.push(id_of(id_base));
    widths.push(1);
    let mut names = vec!["top.clk".to_string()];
    for i in 0..n {
        let w = WIDTHS[r(8) as usize];
        let id = id_of(id_base + 1 + i * (1 + r(3) as usize));
        if ids.contains(&id) {
            continue;
        }
        let nested = r(3) == 0;
        if nested {
            text.push_str(&format!("$scope module u{i} $end\n"));
        }
        let index = if w > 1 && r(2) == 0 {
            format!(" [{}:0]", w - 1)
        } else {
            String::new()
        };
        text.push_str(&format!("$var reg {w} {id} s{i}{index} $end\n"));
        let name = if nested {
            format!("top.u{i}.s{i}")
        } else {
            format!("top.s{i}")
        };
        if r(4) == 0 {
            // An alias: another variable on the same id.
            text.push_str(&format!("$var wire {w} {id} alias{i} $end\n"));
            names.push(name.replace(&format!("s{i}"), &format!("alias{i}")));
        }
        if nested {
            text.push_str("$upscope $end\n");
        }
        names.push(name);
        ids.push(id);
        widths.push(w);
    }
    text.push_str("$upscope $end\n$enddefinitions $end\n");
    if r(2) == 0 {
        text.push_str("$comment\n  a comment with $dumpvars in it\n$end\n");
    }
    let change = |k: usize, r: &mut dyn FnMut(u32) -> u32| -> String {
        let w = widths[k];
        if w == 1 && r(3) != 0 {
            let c = ['0', '1', 'x', 'z'][r(4) as usize];
            format!("{c}{}\n", ids[k])
        } else {
            let mut rr = |n| r(n);
            format!("b{} {}\n", value(w, &mut rr), ids[k])
        }
    };
    if r(2) == 0 {
        text.push_str("#0\n");
    }
    text.push_str("$dumpvars\n");
    for k in 0..ids.len() {
        text.push_str(&change(k, &mut r));
    }
    text.push_str("$end\n");
    let mut t = 0u64;
    let mut clk = false;
    for _ in 0..r(60) {
        t += u64::from(r(3)); // equal stamps now and then
        text.push_str(&format!("#{t}\n"));
        if r(3) != 0 {
            clk = !clk;
            text.push_str(&format!("{}{}\n", u8::from(clk), ids[0]));
        }
        for _ in 0..r(4) {
            let k = r(ids.len() as u32) as usize;
            text.push_str(&change(k, &mut r));
        }
        if r(20) == 0 {
            text.push_str("$comment x $end\n");
        }
    }
    let mut probes = vec![];
    for _ in 0..r(5) {
        let k = r(names.len() as u32) as usize;
        let name = names[k].clone();
        if r(2) == 0 {
            probes.push(format!("{name}[0]"));
        } else {
            probes.push(name);
        }
    }
    let stop_after = (r(4) == 0).then(|| u64::from(r(10)));
    Case {
        text,
        probes,
        stop_after,
    }
}

type Samples = Vec<(u64, u64, Vec<Bits>)>;

/// Our reader with its body parsed by `plan` (0 workers: in the calling thread).
fn run_ours(c: &Case, workers: usize, chunk: usize) -> Result<(Samples, u64), String> {
    with_vcd_plan(VcdPlan { workers, chunk }, || run(c, true))
}

fn run(c: &Case, ours: bool) -> Result<(Samples, u64), String> {
    let probes: Vec<Probe> = c.probes.iter().map(|p| Probe::parse(p).unwrap()).collect();
    let options = WaveOptions {
        clock: "top.clk".into(),
        strip_prefix: None,
        ..WaveOptions::default()
    };
    let mut out = Vec::new();
    let on_edge = |i: u64, t: u64, s: &[Bits]| {
        out.push((i, t, s.to_vec()));
        c.stop_after.is_none_or(|n| i < n)
    };
    let input = Cursor::new(c.text.clone().into_bytes());
    let stats = if ours {
        sample_rising_edges_from(input, "r.vcd", &options, &probes, on_edge)
    } else {
        sample_rising_edges_with_wellen_from(input, "r.vcd", &options, &probes, on_edge)
    }
    .map_err(|e| e.to_string())?;
    Ok((out, stats.edges))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn our_reader_samples_as_wellen_does(seed in any::<u64>(), chunk in 1usize..400) {
        let c = case(seed);
        let wellen = run(&c, false);
        // In one thread, and parsed in chunks by two workers (what a machine with cores to
        // spare does): the same samples, or the same error.
        let one = run_ours(&c, 0, 1 << 20);
        let parallel = run_ours(&c, 2, chunk);
        prop_assert_eq!(&parallel, &one, "{}", c.text);
        match (&one, &wellen) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", c.text),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "ours {:?}\nwellen {:?}\n{}", one, wellen, c.text),
        }
    }
}

/// Not vacuous: most random files are read by both, with edges and samples.
#[test]
fn most_random_files_have_edges() {
    let read = (0..200u64)
        .filter(|&s| run(&case(s * 7919 + 1), true).is_ok_and(|(v, _)| !v.is_empty()))
        .count();
    assert!(read > 120, "{read} of 200");
}

/// A file of almost two reader buffers (1 MiB each), with vectors whose id is on the next line:
/// tokens cut by a buffer boundary are read as wellen reads them.
#[test]
fn a_file_larger_than_the_buffer_reads_as_wellen_does() {
    let mut text = String::from(
        "$scope module top $end\n$var wire 1 ! clk $end\n$var reg 130 %x v [129:0] $end\n\
         $var reg 8 ~~ w $end\n$upscope $end\n$enddefinitions $end\n",
    );
    let mut x = 0x1234_5678_9abc_def1u64;
    for t in 0..12_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text.push_str(&format!("#{}\n{}!\n", t * 5, t % 2));
        let digits: String = (0..130)
            .map(|i| if (x >> (i % 64)) & 1 == 1 { '1' } else { '0' })
            .collect();
        let sep = if t % 3 == 0 { "\n" } else { " " };
        text.push_str(&format!("b{digits}{sep}%x\nb{:b}\t~~\n", x & 0xff));
        if t % 1000 == 0 {
            text.push_str("$comment\nspanning\nlines $end\n");
        }
    }
    assert!(text.len() > 3 << 19);
    let c = Case {
        text,
        probes: vec!["top.v".into(), "top.v[129:64]".into(), "top.w[7:1]".into()],
        stop_after: None,
    };
    let ours = run_ours(&c, 0, 1 << 20).unwrap();
    assert_eq!(ours.1, 6_000);
    assert_eq!(ours, run(&c, false).unwrap());
    for (workers, chunk) in [(1, 4096), (3, 65_536), (8, 1 << 20)] {
        assert_eq!(
            run_ours(&c, workers, chunk).unwrap(),
            ours,
            "{workers} x {chunk}"
        );
    }
}
