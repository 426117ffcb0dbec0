//! Short messages: the precomputed IVs against the values printed in Skein 1.3, Appendix C;
//! plain hashers of every standard configuration against the spec-shaped reference (which
//! always runs the Config UBI) on random lengths, bit lengths included; and no heap allocation
//! on the hot path (new, update, finalize_into, clone, reset), counted by a global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use proptest::prelude::*;
use skeinhw_skein::{Params, Skein, initial_chain, iv, reference};

/// Counts the allocations of the current thread (the tests run on several threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Skein 1.3, Appendix C, as printed: the state size, the output size and the IV words.
const APPENDIX_C: &str = "
256 128 E1111906964D7260 883DAAA77C8D811C 10080DF491960F7A CCF7DDE5B45BC1C2
256 160 1420231472825E98 2AC4E9A25A77E590 D47A58568838D63E 2DD2E4968586AB7D
256 224 C6098A8C9AE5EA0B 876D568608C5191C 99CB88D7D7F53884 384BDDB1AEDDB5DE
256 256 FC9DA860D048B449 2FCA66479FA7D833 B33BC3896656840F 6A54E920FDE8DA69
512 128 A8BC7BF36FBF9F52 1E9872CEBD1AF0AA 309B1790B32190D3 BCFBB8543F94805C
        0DA61BCD6E31B11B 1A18EBEAD46A32E3 A2CC5B18CE84AA82 6982AB289D46982D
512 160 28B81A2AE013BD91 C2F11668B5BDF78F 1760D8F3F6A56F12 4FB747588239904F
        21EDE07F7EAF5056 D908922E63ED70B8 B8EC76FFECCB52FA 01A47BB8A3F27A6E
512 224 CCD0616248677224 CBA65CF3A92339EF 8CCD69D652FF4B64 398AED7B3AB890B4
        0F59D1B1457D2BD0 6776FE6575D4EB3D 99FBC70E997413E9 9E2CFCCFE1C41EF7
512 256 CCD044A12FDB3E13 E83590301A79A9EB 55AEA0614F816E6F 2A2767A4AE9B94DB
        EC06025E74DD7683 E7A436CDC4746251 C36FBAF9393AD185 3EEDBA1833EDFC13
512 384 A3F6C6BF3A75EF5F B0FEF9CCFD84FAA4 9D77DD663D770CFE D798CBF3B468FDDA
        1BC4A6668A0E4465 7ED7D434E5807407 548FC1ACD4EC44D6 266E17546AA18FF8
512 512 4903ADFF749C51CE 0D95DE399746DF03 8FD1934127C79BCE 9A255629FF352CB1
        5DB62599DF6CA7B0 EABE394CA9D5C3F4 991112C71A75B523 AE18A40B660FCC33
1024 384 5102B6B8C1894A35 FEEBC9E3FE8AF11A 0C807F06E32BED71 60C13A52B41A91F6
         9716D35DD4917C38 E780DF126FD31D3A 797846B6C898303A B172C2A8B3572A3B
         C9BC8203A6104A6C 65909338D75624F4 94BCC5684B3F81A0 3EBBF51E10ECFD46
         2DF50F0BEEB08542 3B5A65300DBC6516 484B9CD2167BBCE1 2D136947D4CBAFEA
1024 512 CAEC0E5D7C1B1B18 A01B0E045F03E802 33840451ED912885 374AFB04EAEC2E1C
         DF25A0E2813581F7 E40040938B12F9D2 A662D539C2ED39B6 FA8B85CF45D8C75A
         8316ED8E29EDE796 053289C02E9F91B8 C3F8EF1D6D518B73 BDCEC3C4D5EF332E
         549A7E5222974487 670708725B749816 B9CD28FBF0581BD1 0E2940B815804974
1024 1024 D593DA0741E72355 15B5E511AC73E00C 5180E5AEBAF2C4F0 03BD41D3FCBCAFAF
          1CAEC6FD1983A898 6E510B8BCDD0589F 77E2BDFDC6394ADA C11E1DB524DCB0A3
          D6D14AF9C6329AB5 6A9B0BFC6EB67E0D 9243C60DCCFF1332 1A1F1DDE743F02D4
          0996753C10ED0BB8 6572DD22F2B4969A 61FD3062D00A579A 1DE0536E8682E539
";

/// (state bits, output bits, IV words) of every entry of [`APPENDIX_C`].
fn appendix_c() -> Vec<(usize, u64, Vec<u64>)> {
    let mut entries: Vec<(usize, u64, Vec<u64>)> = Vec::new();
    for line in APPENDIX_C.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let words = |f: &[&str]| -> Vec<u64> {
            f.iter()
                .map(|w| u64::from_str_radix(w, 16).unwrap())
                .collect()
        };
        if line.starts_with(' ') {
            entries.last_mut().unwrap().2.extend(words(&fields));
        } else {
            entries.push((
                fields[0].parse().unwrap(),
                fields[1].parse().unwrap(),
                words(&fields[2..]),
            ));
        }
    }
    entries
}

#[test]
fn table_is_appendix_c() {
    let printed = appendix_c();
    assert_eq!(printed.len(), 13, "Appendix C has 13 IVs");
    let mut table: Vec<(usize, u64, Vec<u64>)> = Vec::new();
    table.extend(iv::SKEIN_256.iter().map(|(o, w)| (256, *o, w.to_vec())));
    table.extend(iv::SKEIN_512.iter().map(|(o, w)| (512, *o, w.to_vec())));
    table.extend(iv::SKEIN_1024.iter().map(|(o, w)| (1024, *o, w.to_vec())));
    assert_eq!(table, printed);
    for (state_bits, out_bits, words) in &printed {
        assert_eq!(words.len() * 64, *state_bits);
        // The spec-shaped reference runs the Config UBI; the fast path reads the table.
        let (reference, fast) = match state_bits {
            256 => (
                reference::initial_chain::<4>(*out_bits, &Params::default()).to_vec(),
                initial_chain::<4>(*out_bits, &Params::default()).to_vec(),
            ),
            512 => (
                reference::initial_chain::<8>(*out_bits, &Params::default()).to_vec(),
                initial_chain::<8>(*out_bits, &Params::default()).to_vec(),
            ),
            _ => (
                reference::initial_chain::<16>(*out_bits, &Params::default()).to_vec(),
                initial_chain::<16>(*out_bits, &Params::default()).to_vec(),
            ),
        };
        assert_eq!(&reference, words, "Skein-{state_bits}-{out_bits} reference");
        assert_eq!(&fast, words, "Skein-{state_bits}-{out_bits} fast");
    }
}

/// A hasher's whole life on a short message, without touching the heap.
fn no_allocation<const N: usize>(out_bits: u64, params: &Params<'_>) {
    let message = [0x5au8; 200];
    let mut out = [0u8; 128];
    let out = &mut out[..out_bits.div_ceil(8) as usize];
    let mut keyed = Skein::<N>::with_params(out_bits, params).unwrap();
    let count = allocations_in(|| {
        for len in [0, 1, 8 * N - 1, 8 * N, 8 * N + 1, 200] {
            let mut h = Skein::<N>::new(out_bits).unwrap();
            h.update(&message[..len]);
            h.update_bits(&message, 3).unwrap();
            h.finalize_into(out).unwrap();
            let mut k = keyed.clone();
            k.update(&message[..len]);
            k.finalize_into_reset(out).unwrap();
            k.update(&message[..len]);
            k.reset();
            keyed.update(&message[..len]);
            keyed.finalize_into_reset(out).unwrap();
        }
    });
    assert_eq!(count, 0, "Skein-{}-{out_bits} allocated", N * 64);
}

#[test]
fn hot_path_does_not_allocate() {
    // The counter counts: a Vec is an allocation.
    assert_eq!(allocations_in(|| drop(std::hint::black_box(vec![1u8]))), 1);
    let params = Params {
        key: b"key",
        personalization: Some(b"pers"),
        nonce: Some(b"nonce"),
        ..Params::default()
    };
    for p in [Params::default(), params] {
        no_allocation::<4>(256, &p);
        no_allocation::<8>(512, &p);
        no_allocation::<8>(160, &p);
        no_allocation::<16>(1024, &p);
        no_allocation::<16>(1000, &p);
    }
}

/// A message with a bit length that may end inside its last byte.
fn message() -> impl Strategy<Value = (Vec<u8>, u64)> {
    prop::collection::vec(any::<u8>(), 0..300).prop_flat_map(|m| {
        let bits = m.len() as u64 * 8;
        (Just(m), prop_oneof![Just(bits), 0..=bits])
    })
}

fn check<const N: usize>(out_bits: u64, m: &[u8], bits: u64) -> Result<(), TestCaseError> {
    let params = Params::default();
    let mut h = Skein::<N>::new(out_bits).unwrap();
    h.update_bits(m, bits).unwrap();
    let mut out = vec![0u8; out_bits.div_ceil(8) as usize];
    h.clone().finalize_into(&mut out).unwrap();
    let want = reference::skein::<N>(out_bits, m, bits, &params);
    prop_assert_eq!(&out, &want);
    // A reset hasher starts from the same IV.
    h.reset();
    h.update_bits(m, bits).unwrap();
    prop_assert_eq!(h.finalize(), want);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every standard configuration (and a few outside the table) against the reference.
    #[test]
    fn standard_configurations_equal_reference(which in 0usize..16, (m, bits) in message()) {
        match which {
            0..=3 => check::<4>(iv::SKEIN_256[which].0, &m, bits)?,
            4..=9 => check::<8>(iv::SKEIN_512[which - 4].0, &m, bits)?,
            10..=12 => check::<16>(iv::SKEIN_1024[which - 10].0, &m, bits)?,
            13 => check::<4>(255, &m, bits)?,
            14 => check::<8>(8, &m, bits)?,
            _ => check::<16>(256, &m, bits)?,
        }
    }
}
