//! The runtime's device (`--device`), parsed once.
//!
//! Why a type: `bench`, `check --bench` and `tune` run IREE's runtime on a device the user
//! names as IREE's runtime does (`local-task`, `cuda`, `hip://1`, `vulkan://0`), and each of
//! them needs to know what kind of device that is (a local CPU device compiles for the host, a
//! GPU device needs a target of its driver), as do the measurement records that say where a
//! config was timed. Splitting the text in each place let the places disagree; the CLI parses
//! the flag into a [`Device`] once (clap's `value_parser`), and a record written by another tool
//! gives its device's kind through [`kind_of`], the one lenient reading. This is the only
//! module that knows how a device URI is spelled (`tests/all/one_home.rs` checks it).

use std::fmt;

/// What separates a device's driver from the rest of its URI (`cuda://1`).
const SEPARATOR: &str = "://";

/// A device of IREE's runtime, as named on the command line: the driver (`kind`), and what
/// follows `://` when the URI names one device of it (`cuda://1`: the second CUDA device).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    /// The URI as given (`cuda://1`, `local-task`): what the runtime is passed, and what
    /// records and reports say.
    uri: String,
    /// The length of the driver's name at the start of `uri`.
    kind_len: usize,
}

impl Device {
    /// Parses `--device`'s text: a driver name (lowercase letters, digits, `-`, `_`), with
    /// `://` and the device's index or id after it, or nothing. The error says what is wrong
    /// (clap quotes the value before it), for a usage error (exit 2).
    pub fn parse(text: &str) -> Result<Device, String> {
        let (kind, rest) = match text.split_once(SEPARATOR) {
            Some((kind, rest)) => (kind, Some(rest)),
            None => (text, None),
        };
        if kind.is_empty() {
            return Err(
                "no driver named: give one such as local-task, local-sync, cuda, hip or vulkan, or a URI such as cuda://1"
                    .to_string(),
            );
        }
        let valid = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
        if let Some(bad) = kind.chars().find(|&c| !valid(c)) {
            return Err(format!(
                "a driver's name is lowercase letters, digits, '-' and '_', not '{bad}' (local-task, cuda, hip://1)"
            ));
        }
        if rest.is_some_and(|rest| rest.chars().any(char::is_whitespace)) {
            return Err("a device URI has no spaces".to_string());
        }
        Ok(Device {
            uri: text.to_string(),
            kind_len: kind.len(),
        })
    }

    /// The driver alone (`cuda` for `cuda://1`): what several devices of one model timed at
    /// once are reported as, the index naming a slot, not what was measured.
    pub fn driver(&self) -> Device {
        Device {
            uri: self.kind().to_string(),
            kind_len: self.kind_len,
        }
    }

    /// The driver: `cuda` for `cuda://1` (the index names a slot, not what the device is).
    pub fn kind(&self) -> &str {
        &self.uri[..self.kind_len]
    }

    /// What follows `://` (`1` for `cuda://1`, a UUID for some drivers); `None` for a bare
    /// driver name, which lets the runtime pick its first device.
    pub fn id(&self) -> Option<&str> {
        self.uri.get(self.kind_len + SEPARATOR.len()..)
    }

    /// The index of `cuda://1`, when the id is a number.
    pub fn index(&self) -> Option<u32> {
        self.id()
            .and_then(|id| id.trim_end_matches('/').parse().ok())
    }

    /// The URI as given: what the runtime's `--device=` is passed.
    pub fn as_str(&self) -> &str {
        &self.uri
    }

    /// IREE's local CPU devices (`local-task`, `local-sync`): code for them is compiled for
    /// llvm-cpu and timed on this machine's CPU.
    pub fn is_local(&self) -> bool {
        matches!(self.kind(), "local-task" | "local-sync")
    }

    /// Whether the runtime's listed device `listed` (`cuda://0`, `local-task://`) can run this
    /// one: the same URI (a trailing `/` aside), or the same driver.
    pub fn is_listed_as(&self, listed: &str) -> bool {
        listed.trim_end_matches('/') == self.uri.trim_end_matches('/')
            || kind_of(listed) == self.kind()
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uri)
    }
}

impl std::str::FromStr for Device {
    type Err = String;

    fn from_str(text: &str) -> Result<Device, String> {
        Device::parse(text)
    }
}

impl serde::Serialize for Device {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.uri)
    }
}

impl<'de> serde::Deserialize<'de> for Device {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Device, D::Error> {
        let text = String::deserialize(deserializer)?;
        Device::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Devices given together (`--device` repeated) that can time one plan at once: one driver
/// (the code is compiled for one), each once, and not IREE's local drivers, which have one
/// device each (no device paths: the runtime refuses `local-sync://1`) and share one CPU:
/// several devices are a host's GPUs. `Err` says which rule and what would do.
pub fn check_several(devices: &[Device]) -> Result<(), String> {
    let Some(first) = devices.first() else {
        return Ok(());
    };
    if let Some(other) = devices.iter().find(|d| d.kind() != first.kind()) {
        return Err(format!(
            "--device {first} and --device {other}: devices timed at once share one driver (the code is compiled for one); time each driver's devices apart"
        ));
    }
    for (index, device) in devices.iter().enumerate() {
        if devices[..index]
            .iter()
            .any(|d| d.as_str() == device.as_str())
        {
            return Err(format!(
                "--device {device} is given twice: each device times its own part (cuda://0 --device cuda://1)"
            ));
        }
    }
    if devices.len() > 1 && first.is_local() {
        return Err(format!(
            "--device {first} is given with others: IREE's local drivers have one device (the CPU), so several devices are a host's GPUs (cuda://0 --device cuda://1)"
        ));
    }
    Ok(())
}

/// The driver of a device named in a record another run or tool wrote (`hip://0` gives `hip`,
/// `local-task` itself): read leniently, as such records are not checked for spelling.
pub fn kind_of(written: &str) -> &str {
    written.split(SEPARATOR).next().unwrap_or(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_has_a_kind_and_an_index() {
        let device = Device::parse("cuda://1").unwrap();
        assert_eq!(device.kind(), "cuda");
        assert_eq!(device.id(), Some("1"));
        assert_eq!(device.index(), Some(1));
        assert_eq!(device.to_string(), "cuda://1");
        assert!(!device.is_local());
    }

    #[test]
    fn a_bare_driver_is_its_own_kind() {
        let device = Device::parse("local-task").unwrap();
        assert_eq!(device.kind(), "local-task");
        assert_eq!(device.id(), None);
        assert_eq!(device.index(), None);
        assert!(device.is_local());
        assert_eq!(device.as_str(), "local-task");
        let uuid = Device::parse("cuda://GPU-0f1e").unwrap();
        assert_eq!(
            (uuid.kind(), uuid.id(), uuid.index()),
            ("cuda", Some("GPU-0f1e"), None)
        );
    }

    #[test]
    fn bad_devices_are_refused_with_the_reason() {
        for (text, says) in [
            ("", "no driver named"),
            ("://1", "no driver named"),
            ("CUDA", "not 'C'"),
            ("cu da", "not ' '"),
            ("cuda://1 2", "no spaces"),
        ] {
            let error = Device::parse(text).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn a_listed_device_matches_by_uri_or_driver() {
        let device = Device::parse("cuda://1").unwrap();
        assert!(device.is_listed_as("cuda://0"));
        assert!(device.is_listed_as("cuda://1/"));
        assert!(!device.is_listed_as("hip://1"));
        assert!(Device::parse("local-task")
            .unwrap()
            .is_listed_as("local-task://"));
        assert_eq!(kind_of("hip://0"), "hip");
        assert_eq!(kind_of("H100"), "H100");
    }

    #[test]
    fn several_devices_share_a_driver_are_distinct_and_are_not_local() {
        let devices = |uris: &[&str]| -> Vec<Device> {
            uris.iter().map(|uri| Device::parse(uri).unwrap()).collect()
        };
        assert_eq!(check_several(&devices(&["cuda://0", "cuda://1"])), Ok(()));
        assert_eq!(check_several(&devices(&["local-task"])), Ok(()));
        assert!(check_several(&devices(&["cuda://0", "hip://0"]))
            .unwrap_err()
            .contains("one driver"));
        assert!(check_several(&devices(&["cuda://1", "cuda://1"]))
            .unwrap_err()
            .contains("twice"));
        assert!(check_several(&devices(&["local-task", "local-task://"]))
            .unwrap_err()
            .contains("local drivers"));
        assert_eq!(Device::parse("hip://3").unwrap().driver().as_str(), "hip");
    }
}
