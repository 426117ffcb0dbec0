//! Comparing the model with a netlist of another design: a netlist of another state size is
//! refused, a model in another style than the netlist's is named in a warning. Without these a
//! comparison of unlike designs reads as a model error (-82% flip-flops, +125% throughput).

use super::*;

/// The state size of a core `skeinhw rtl` generated, from its first slot's state register
/// (`slot0_st`, or its 64-bit words `slot0_state_<w>`); `None` for any other netlist.
pub(super) fn generated_state_bits<'a>(names: impl Iterator<Item = (&'a str, u32)>) -> Option<u32> {
    let mut words = 0;
    for (name, width) in names {
        if name == "slot0_st" {
            return Some(width);
        }
        if name
            .strip_prefix("slot0_state_")
            .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
        {
            words += 1;
        }
    }
    (words > 0).then_some(words * 64)
}

/// The style the model is estimated in: with --synth and no --style, the generated design's
/// own (what the netlist is of), said on standard error by [`style_note`].
pub(super) fn model_style(style: Option<CoreStyle>, synth: bool) -> Option<CoreStyle> {
    match style {
        None if synth => Some(CoreStyle::Generated),
        other => other,
    }
}

/// The line that says why the style is `generated`, when --synth chose it.
pub(super) fn style_note(style: Option<CoreStyle>, synth: bool) -> Option<String> {
    (synth && style.is_none()).then(|| {
        "note: --synth: the model is estimated in the generated style, the design the netlist \
         is of (give --style to compare the netlist with another style)"
            .to_owned()
    })
}

/// Refuses a generated core's netlist of another state size than the schedule's.
pub(super) fn check_size(
    path: &Path,
    netlist_bits: Option<u32>,
    schedule: &Schedule,
) -> Result<()> {
    let size = schedule.block_bits();
    match netlist_bits {
        Some(bits) if bits != size => bail!(
            "{}: the netlist is of a Skein-{bits} core (its state register slot0_st), the \
             schedule {} of Skein-{size}: give a schedule of the netlist's size (--size {bits})",
            path.display(),
            schedule.name()
        ),
        _ => Ok(()),
    }
}

/// The warning for a model in another style than a generated core's netlist.
pub(super) fn style_warning(
    model: CoreStyle,
    netlist_is_generated: bool,
    origin: &str,
) -> Option<String> {
    (netlist_is_generated && model != CoreStyle::Generated).then(|| {
        format!(
            "warning: the model is in the {model} style, the netlist {origin} is of the \
             generated style (`skeinhw rtl`): their flip-flops and throughput differ by design; \
             --style generated compares like with like"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_cores_state_size_is_read_from_its_names() {
        let named = [("clk", 1), ("slot0_st", 512), ("slot0_state_0", 64)];
        assert_eq!(generated_state_bits(named.into_iter()), Some(512));
        let words = [
            ("slot0_state_0", 64),
            ("slot0_state_1", 64),
            ("slot0_state_x", 64),
        ];
        assert_eq!(generated_state_bits(words.into_iter()), Some(128));
        let other = [("v", 256), ("slot1_st", 256)];
        assert_eq!(generated_state_bits(other.into_iter()), None);
    }

    #[test]
    fn synth_defaults_to_the_generated_style_and_says_so() {
        assert_eq!(model_style(None, true), Some(CoreStyle::Generated));
        assert!(style_note(None, true).is_some());
        assert_eq!(
            model_style(Some(CoreStyle::HashCore), true),
            Some(CoreStyle::HashCore)
        );
        assert!(style_note(Some(CoreStyle::HashCore), true).is_none());
        assert_eq!(model_style(None, false), None);
        let w = style_warning(CoreStyle::HashCore, true, "x.json").unwrap();
        assert!(w.contains("hash_core") && w.contains("generated"), "{w}");
        assert!(style_warning(CoreStyle::Generated, true, "x.json").is_none());
        assert!(style_warning(CoreStyle::HashCore, false, "x.json").is_none());
    }
}
