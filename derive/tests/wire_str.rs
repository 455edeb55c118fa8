//! `WireStr`: a unit enum's `Display` and `FromStr` use the same wire names
//! as its serde derives.

use ::mcpbind::__private::{Deserialize, Serialize, WireStr};

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
