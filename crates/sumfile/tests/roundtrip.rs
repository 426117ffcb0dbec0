//! format -> parse round trip over arbitrary byte names, digests and both line forms.

use proptest::prelude::*;
use skeinhw_sumfile::{format_line, parse_line};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn newline_lines_read_back(
        name in proptest::collection::vec(any::<u8>(), 1..64),
        digest in proptest::collection::vec(any::<u8>(), 1..80),
        tagged in any::<bool>(),
    ) {
        let tag = tagged.then_some("SKEIN-512-256");
        let line = format_line(tag, &digest, &name, false);
        let body = line.strip_suffix(b"\n").unwrap();
        // One line: the name cannot break it.
        prop_assert!(!body.contains(&b'\n'));
        let e = parse_line(body).unwrap();
        prop_assert_eq!(e.tag, tag);
        prop_assert_eq!(e.digest, digest);
        prop_assert_eq!(&*e.name, &name[..]);
    }

    #[test]
    fn nul_lines_read_back(
        // -z lines are not escaped: a name starting with `\`, or with a trailing CR, is
        // ambiguous exactly as it is for coreutils; the names -z is for are the others.
        name in proptest::collection::vec(any::<u8>().prop_filter("no NUL", |b| *b != 0), 1..64)
            .prop_filter("unambiguous", |n| n[0] != b'\\' && n[0] != b' ' && n[0] != b'\t' && n.last() != Some(&b'\r')),
        digest in proptest::collection::vec(any::<u8>(), 1..80),
    ) {
        let line = format_line(None, &digest, &name, true);
        let e = parse_line(line.strip_suffix(b"\0").unwrap()).unwrap();
        prop_assert_eq!(e.digest, digest);
        prop_assert_eq!(&*e.name, &name[..]);
    }

    #[test]
    fn any_bytes_parse_or_fail_cleanly(line in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_line(&line);
    }
}
