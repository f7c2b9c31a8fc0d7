//! Target names, aliases and LLVM target-ID features, as manifests, configs and target strings
//! write them.

/// Parses one LLVM target-ID feature, `xnack+` or `sramecc-` (case-insensitive).
pub fn parse_feature(text: &str) -> Result<(String, bool), String> {
    let lower = text.trim().to_ascii_lowercase();
    let (name, enabled) = if let Some(name) = lower.strip_suffix('+') {
        (name, true)
    } else if let Some(name) = lower.strip_suffix('-') {
        (name, false)
    } else {
        return Err(format!(
            "feature '{text}' needs a + or - suffix, as LLVM writes target features ({lower}+ or {lower}-)"
        ));
    };
    match check_name(name) {
        Ok(()) => Ok((name.to_string(), enabled)),
        Err(reason) => Err(format!("feature '{text}': the name {reason}")),
    }
}

/// `xnack+` / `xnack-`.
pub fn format_feature(name: &str, enabled: bool) -> String {
    format!("{name}{}", if enabled { '+' } else { '-' })
}

/// Target names, aliases and feature names: lowercase ASCII letters, digits, `_`, `.` and `-`,
/// starting with a letter or digit (`:` separates features in a target ID).
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name != name.to_ascii_lowercase() {
        return Err("must be lowercase (lookups are case-insensitive)");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err("must start with a letter or digit");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        return Err("may only hold letters, digits, '_', '.' and '-'");
    }
    Ok(())
}
