//! `WireStr`: a unit enum's `Display` and `FromStr` use the same wire names
//! as its serde derives.

use ::mcpbind::__private::{Deserialize, Serialize, WireStr};

// `FastMode`, `SlowMode`: renamed variants, as a server's enum gives them.
#[allow(clippy::enum_variant_names)]
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, WireStr)]
pub enum Mode {
    #[serde(rename = "fast-mode")]
    FastMode,
    #[serde(rename = "slow mode")]
    SlowMode,
    Default,
}

const ALL: [Mode; 3] = [Mode::FastMode, Mode::SlowMode, Mode::Default];

#[test]
fn display_writes_the_wire_name_serde_writes() {
    for mode in ALL {
        let wire = serde_json::to_value(mode).unwrap();
        assert_eq!(wire, serde_json::Value::String(mode.to_string()));
    }
    assert_eq!(Mode::SlowMode.to_string(), "slow mode");
    assert_eq!(Mode::Default.to_string(), "Default");
}

#[test]
fn from_str_reads_every_wire_name_and_refuses_others() {
    for mode in ALL {
        assert_eq!(mode.to_string().parse::<Mode>().unwrap(), mode);
    }
    let err = "FastMode".parse::<Mode>().unwrap_err();
    assert_eq!(err.to_string(), "invalid value");
    let _: &dyn std::error::Error = &err;
}

#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, WireStr)]
#[serde(rename_all = "kebab-case")]
pub enum Kebab {
    FastMode,
    #[serde(rename = "slow mode")]
    SlowMode,
}

#[test]
fn rename_all_names_variants_as_serde_does() {
    for (value, wire) in [
        (Kebab::FastMode, "fast-mode"),
        (Kebab::SlowMode, "slow mode"),
    ] {
        assert_eq!(value.to_string(), wire);
        assert_eq!(serde_json::to_value(value).unwrap(), wire);
        assert_eq!(wire.parse::<Kebab>().unwrap(), value);
    }
    assert!("FastMode".parse::<Kebab>().is_err());
}
