//! Checking attributes with iree-opt: generating one input for every site, running it with a
//! time limit, and mapping its messages back to the sites.
//!
//! Finding iree-opt is the caller's: the `tunespec` crate finds it beside the IREE library every
//! other command uses (`tunespec::iree::iree_opt`), `build.rs` takes `TUNESPEC_IREE_OPT`; a search
//! here could pick another IREE than the one the run reports.

use super::*;

/// The timeout a value of [`ENV_TIMEOUT`] gives (whole seconds), else [`DEFAULT_TIMEOUT`].
/// The caller reads the variable: the `tunespec` crate through its one reader of the
/// environment (`tunespec::config::process_env`), `build.rs` itself; the core reads none.
pub fn timeout_from(value: Option<&str>) -> Duration {
    value
        .and_then(|value| value.trim().parse::<u64>().ok())
        .filter(|&seconds| seconds > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
}

/// The generated input: every site's chunk, and for each generated line where it came from.
pub(super) struct Generated {
    text: String,
    /// Per generated line (index = line - 1): the site, the spec line it maps to, and whether
    /// it is a line of the attribute itself (not of an alias definition or the wrapper).
    lines: Vec<(usize, Option<u32>, bool)>,
}

pub(super) fn generate(sites: &[Site]) -> Generated {
    let mut generated = Generated {
        text: String::new(),
        lines: Vec::new(),
    };
    let push_line =
        |generated: &mut Generated, site: usize, line: &str, from: Option<u32>, attribute: bool| {
            generated.text.push_str(line);
            generated.text.push('\n');
            generated.lines.push((site, from, attribute));
        };
    for (index, site) in sites.iter().enumerate() {
        if index > 0 {
            push_line(&mut generated, index, "// -----", None, false);
        }
        let (attribute, aliases) = site
            .segments
            .split_last()
            .expect("a site has its attribute");
        for segment in aliases {
            for (offset, line) in segment.text.lines().enumerate() {
                let from = segment.first_line.map(|first| first + offset as u32);
                push_line(&mut generated, index, line, from, false);
            }
        }
        push_line(
            &mut generated,
            index,
            "module attributes {tunespec.check =",
            None,
            false,
        );
        for (offset, line) in attribute.text.lines().enumerate() {
            let from = attribute.first_line.map(|first| first + offset as u32);
            push_line(&mut generated, index, line, from, true);
        }
        push_line(&mut generated, index, "} {}", None, false);
    }
    generated
}

/// Checks every site with one iree-opt process. Returns, per site that iree-opt rejects, the
/// site's index and the problem (IREE's first error for it, located in the spec); `Err` says why
/// nothing could be checked (iree-opt would not start, timed out, crashed, or said nothing
/// tunespec could place).
pub fn check(
    iree_opt: &Path,
    sites: &[Site],
    timeout: Duration,
) -> Result<Vec<(usize, Problem)>, String> {
    if sites.is_empty() {
        return Ok(Vec::new());
    }
    let groups = identical_groups(sites);
    let representatives: Vec<Site> = groups.iter().map(|group| sites[group[0]].clone()).collect();
    let generated = generate(&representatives);
    let (status, stderr) = run(iree_opt, generated.text.clone().into_bytes(), timeout)?;
    let mut problems: Vec<(usize, Problem)> = Vec::new();
    let mut reported: BTreeSet<usize> = BTreeSet::new();
    let generated_lines: Vec<&str> = generated.text.lines().collect();
    for line in stderr.lines() {
        let Some((line_number, col, message)) = parse_error(line) else {
            continue;
        };
        let Some(&(group, from, in_attribute)) =
            generated.lines.get(line_number.wrapping_sub(1) as usize)
        else {
            continue;
        };
        // The first error of a chunk is the cause; the next ones unwind the same parse.
        if !reported.insert(group) {
            continue;
        }
        let generated_line = generated_lines
            .get(line_number as usize - 1)
            .copied()
            .unwrap_or_default();
        let found = Found {
            explained: explain(message, generated_line, col),
            col,
            from,
            in_attribute,
            representative: &representatives[group],
        };
        for &site_index in &groups[group] {
            problems.push((site_index, found.problem_at(&sites[site_index])));
        }
    }
    // Sites whose alias definitions were at fault report the same finding: keep one.
    let mut seen = BTreeSet::new();
    problems.retain(|(_, problem)| seen.insert((problem.loc.clone(), problem.message.clone())));
    if problems.is_empty() && !status.success() {
        let tail: String = stderr.lines().take(5).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "{} exited with {status} without a diagnostic tunespec could place{}",
            iree_opt.display(),
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            }
        ));
    }
    Ok(problems)
}

/// The sites grouped by identical attribute text, each group in site order, groups in order of
/// first appearance. Identical attributes (a config repeated for many shapes: 486 attributes
/// but 33 distinct ones in the default specs) are checked once; what iree-opt says of one
/// holds for each.
fn identical_groups(sites: &[Site]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: std::collections::HashMap<Vec<(Option<u32>, &str)>, usize> = Default::default();
    for (index, site) in sites.iter().enumerate() {
        let key: Vec<(Option<u32>, &str)> = site
            .segments
            .iter()
            .enumerate()
            .map(|(position, segment)| {
                if position + 1 == site.segments.len() {
                    (
                        segment.first_line.map(|_| 0),
                        segment.text.trim_start_matches(' '),
                    )
                } else {
                    (segment.first_line, segment.text.as_str())
                }
            })
            .collect();
        let group = *by_key.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(index);
    }
    groups
}

/// IREE's first error on one group's representative: the explained message, IREE's column, the
/// spec line the generated line came from (if any) and whether it was inside the attribute.
struct Found<'a> {
    explained: Explained,
    col: u32,
    from: Option<u32>,
    in_attribute: bool,
    representative: &'a Site,
}

impl Found<'_> {
    /// The problem for one site of the group, located at the same place in that site's text.
    fn problem_at(&self, site: &Site) -> Problem {
        let (col, from) = (self.col, self.from);
        let loc = match (from, &site.loc, &self.representative.loc) {
            _ if self.explained.at_start => site.loc.clone(),
            (Some(line), Some(site_loc), Some(first)) if self.in_attribute => {
                // Same text, another place: the same offset from the attribute's start.
                let offset = line - first.line;
                Some(Loc {
                    file: site_loc.file.clone(),
                    line: site_loc.line + offset,
                    col: if offset == 0 {
                        col + site_loc.col - first.col
                    } else {
                        col
                    },
                })
            }
            (Some(line), Some(site_loc), _) => Some(Loc {
                file: site_loc.file.clone(),
                line,
                col,
            }),
            (_, loc, _) => loc.clone(),
        };
        let mut problem =
            Problem::error(codes::IREE_ATTRIBUTE, self.explained.message.clone(), loc);
        problem.help = Some(match &self.explained.help {
            Some(help) => {
                format!("{help} (IREE would fail to load this spec; checked with iree-opt)")
            }
            None => "IREE would fail to load this spec (checked with iree-opt)".to_string(),
        });
        if from.is_none() && site.segments.last().is_some_and(|s| s.first_line.is_none()) {
            problem.message = format!(
                "{} (at column {col} of the attribute as MLIR prints it)",
                problem.message
            );
        }
        problem
    }
}

/// `<stdin>:LINE:COL: error: MESSAGE` -> (line, col, message).
pub(super) fn parse_error(line: &str) -> Option<(u32, u32, &str)> {
    let rest = line.strip_prefix("<stdin>:")?;
    let (line_number, rest) = rest.split_once(':')?;
    let (col, rest) = rest.split_once(':')?;
    let message = rest.strip_prefix(" error: ")?;
    Some((line_number.parse().ok()?, col.parse().ok()?, message))
}

/// IREE's message, made readable where it is not, with help where tunespec knows more.
pub(super) struct Explained {
    message: String,
    help: Option<String>,
    /// Report at the attribute's start rather than at IREE's column.
    at_start: bool,
}

pub(super) fn explain(message: &str, line: &str, col: u32) -> Explained {
    let word_at = |col: u32| -> String {
        line.get(col.saturating_sub(1) as usize..)
            .unwrap_or_default()
            .chars()
            .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
            .collect()
    };
    let mut explained = Explained {
        message: message.to_string(),
        help: None,
        at_start: false,
    };
    // "expected <enum> to be one of: A, B, ...": an enum case IREE does not know.
    if let Some((expected, cases)) = message.split_once(" to be one of: ") {
        let cases: Vec<&str> = cases.split(", ").collect();
        let word = word_at(col);
        if !word.is_empty() {
            let nearest = cases
                .iter()
                .map(|case| (crate::verify::edit_distance(&word, case), *case))
                .filter(|(distance, case)| *distance <= (word.len().max(case.len()) / 4).max(1))
                .min()
                .map(|(_, case)| case);
            if let Some(nearest) = nearest {
                explained.help = Some(format!("did you mean `{nearest}`?"));
            }
            // Long lists (MMA intrinsics: about a hundred) bury the point.
            if cases.len() > 12 {
                explained.message = format!(
                    "`{word}` is not a valid value: {expected} to be one of {} values",
                    cases.len()
                );
            }
        }
        return explained;
    }
    // The pre-3.13 spelling `pipeline = LLVMGPUVectorDistribute`. IREE puts the error at the
    // blank before the word (the parser's position after `=`), so the word is read past blanks:
    // reading it at the column gave an empty word, and the hint then named a fixed pipeline
    // whatever the spec's own was.
    let before = line
        .get(..col.saturating_sub(1) as usize)
        .unwrap_or_default();
    if message == "expected attribute value" && before.trim_end().ends_with("pipeline =") {
        let skipped = line
            .get(col.saturating_sub(1) as usize..)
            .unwrap_or_default()
            .chars()
            .take_while(|ch| *ch == ' ')
            .count() as u32;
        let word = word_at(col + skipped);
        explained.help = Some(match super::migrate::gpu_pipeline_case(&word) {
            Some(case) => format!(
                "IREE 3.13 spells a GPU pipeline as an attribute: `pipeline = #iree_gpu.pipeline<{case}>` (`tunespec check --fix` rewrites it)"
            ),
            None => format!(
                "IREE 3.13 spells a GPU pipeline as an attribute, `pipeline = #iree_gpu.pipeline<CASE>` with CASE one of {}; `{word}` has no such case",
                super::migrate::GPU_PIPELINES.join(", ")
            ),
        });
        return explained;
    }
    // In a printed attribute: an alias of the text that MLIR kept as text.
    if message.starts_with("undefined symbol alias id '") {
        explained.help = Some(
            "the spec used an alias inside an IREE attribute; MLIR without IREE's dialects kept the reference and dropped the definition: write the alias's value in its place".to_string(),
        );
        return explained;
    }
    // An attribute of a dialect iree-opt does not have: MLIR's message is about a context flag.
    if let Some(rest) = message.strip_prefix("#\"") {
        if message.contains("attribute created with unregistered dialect") {
            let dialect = &rest[..rest.find('"').unwrap_or(0)];
            explained.message = format!("IREE has no attribute dialect `{dialect}`");
            explained.help = crate::iree_ops::ATTRIBUTE_DIALECTS
                .iter()
                .map(|known| (crate::verify::edit_distance(dialect, known), *known))
                .filter(|(distance, _)| *distance <= 2)
                .min()
                .map(|(_, known)| format!("did you mean `#{known}`?"));
            explained.at_start = true;
        }
    }
    explained
}

/// Runs iree-opt on `input` (stdin), returns its exit status and stderr. Never waits longer than
/// `timeout`: the child is killed and the run reported as not checked.
pub(super) fn run(
    iree_opt: &Path,
    input: Vec<u8>,
    timeout: Duration,
) -> Result<(std::process::ExitStatus, String), String> {
    let mut child = Command::new(iree_opt)
        .args([
            "--split-input-file",
            "--mlir-disable-threading",
            "-o",
            "-",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", iree_opt.display()))?;
    let mut stdin = child.stdin.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // Threads for both pipes: a child that fills one while tunespec writes the other must not
    // deadlock. After a timeout they are left behind (a grandchild may hold a pipe open).
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        let _ = sender.send(String::from_utf8_lossy(&text).into_owned());
    });
    let started = Instant::now();
    let status = match crate::child::wait_or_kill(&mut child, timeout) {
        Ok(Some(status)) => status,
        Ok(None) => {
            return Err(format!(
                "{} did not finish within {} s and was stopped ({ENV_TIMEOUT} sets the limit)",
                iree_opt.display(),
                timeout.as_secs()
            ))
        }
        Err(error) => return Err(format!("waiting for {}: {error}", iree_opt.display())),
    };
    let remaining = timeout.saturating_sub(started.elapsed()) + Duration::from_secs(1);
    let stderr = receiver.recv_timeout(remaining).map_err(|_| {
        format!(
            "{} exited but its diagnostics did not arrive within {} s",
            iree_opt.display(),
            timeout.as_secs()
        )
    })?;
    Ok((status, stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iree-opt 3.13 reports `expected attribute value` at the blank after `pipeline =`: the
    /// hint must still name the spec's own pipeline.
    #[test]
    fn the_pipeline_hint_names_the_specs_pipeline() {
        let line = "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = [64]>";
        let col = line.find(" LLVMGPU").unwrap() as u32 + 1;
        let explained = explain("expected attribute value", line, col);
        let help = explained.help.unwrap();
        assert!(
            help.contains("#iree_gpu.pipeline<VectorDistribute>"),
            "{help}"
        );
        let explained = explain("expected attribute value", line, col + 1);
        assert!(explained
            .help
            .unwrap()
            .contains("#iree_gpu.pipeline<VectorDistribute>"));
        let line = "#iree_codegen.translation_info<pipeline = LLVMGPUMatmulSimt>";
        let col = line.find(" LLVMGPU").unwrap() as u32 + 1;
        let help = explain("expected attribute value", line, col).help.unwrap();
        assert!(
            help.contains("`LLVMGPUMatmulSimt` has no such case"),
            "{help}"
        );
        assert!(!help.contains("<TileAndFuse>"), "{help}");
    }
}
