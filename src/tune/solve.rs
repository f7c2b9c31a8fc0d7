//! The solutions of IREE's constraints: z3 (Debian's libz3, through the `z3` crate) reads the
//! SMT-LIB script MLIR exported and enumerates distinct knob assignments.
//!
//! Why blocking clauses built from the model's own values (`knob != model(knob)`): built from
//! plain integers instead, single solver calls stalled for seconds (measured:
//! `../shared/guide/iree-constraints.md`); from the model's values, all solutions of a space
//! come at about a hundred per second. The order of z3's solutions is arbitrary: ranking them
//! is [`super::order`]'s job.
//!
//! This is the one module that touches z3. Its context is the calling thread's (the crate's
//! thread-local context): solve on one thread at a time per space.

use std::time::{Duration, Instant};

use z3::ast::Int;
use z3::{Params, SatResult, Solver};

/// What an enumeration found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solutions {
    /// Each solution's values, in the order of the knobs asked for.
    pub values: Vec<Vec<i64>>,
    /// Whether every solution was found (the solver said there are no more), rather than
    /// stopping at the limit or the deadline.
    pub complete: bool,
}

/// At most `most` distinct assignments of `knobs` that satisfy `script` (SMT-LIB), found
/// within `time` (the solver's calls are cut off at the deadline).
pub fn solutions(
    script: &str,
    knobs: &[String],
    most: usize,
    time: Duration,
) -> Result<Solutions, String> {
    let started = Instant::now();
    let solver = Solver::new();
    solver.from_string(script.replace("(check-sat)", "").replace("(reset)", ""));
    let variables: Vec<Int> = knobs
        .iter()
        .map(|knob| Int::new_const(knob.as_str()))
        .collect();
    let mut values = Vec::new();
    loop {
        if values.len() >= most {
            return Ok(Solutions {
                values,
                complete: false,
            });
        }
        let left = time.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Ok(Solutions {
                values,
                complete: false,
            });
        }
        let mut params = Params::new();
        params.set_u32(
            "timeout",
            u32::try_from(left.as_millis()).unwrap_or(u32::MAX).max(1),
        );
        solver.set_params(&params);
        match solver.check() {
            SatResult::Unsat => {
                return Ok(Solutions {
                    values,
                    complete: true,
                })
            }
            SatResult::Unknown if values.is_empty() && started.elapsed() < time => {
                return Err(format!(
                    "z3 could not decide IREE's constraints: {}",
                    solver
                        .get_reason_unknown()
                        .unwrap_or_else(|| "unknown".to_string())
                ))
            }
            SatResult::Unknown => {
                return Ok(Solutions {
                    values,
                    complete: false,
                })
            }
            SatResult::Sat => {}
        }
        let model = solver
            .get_model()
            .ok_or("z3 said the constraints are satisfiable but gave no model")?;
        let mut assignment = Vec::with_capacity(variables.len());
        let mut differs = Vec::with_capacity(variables.len());
        for variable in &variables {
            let value = model
                .eval(variable, true)
                .ok_or("z3's model has no value for a knob")?;
            assignment.push(
                value
                    .as_i64()
                    .ok_or("a knob's value does not fit 64 bits")?,
            );
            differs.push(variable.ne(&value));
        }
        values.push(assignment);
        solver.assert(z3::ast::Bool::or(&differs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "(declare-const wg_0 Int)
(declare-const wg_1 Int)
(assert (and (>= wg_0 1) (<= wg_0 4)))
(assert (and (>= wg_1 1) (<= wg_1 3)))
(assert (= (mod (* wg_0 wg_1) 2) 0))
(check-sat)
(reset)
";

    #[test]
    fn every_solution_is_found_once_and_satisfies_the_constraints() {
        let knobs = vec!["wg_0".to_string(), "wg_1".to_string()];
        let found = solutions(SCRIPT, &knobs, 100, Duration::from_secs(30)).unwrap();
        assert!(found.complete);
        let mut values = found.values.clone();
        values.sort();
        values.dedup();
        assert_eq!(values.len(), found.values.len());
        let expected: Vec<Vec<i64>> = (1..=4)
            .flat_map(|a| (1..=3).map(move |b| vec![a, b]))
            .filter(|v| (v[0] * v[1]) % 2 == 0)
            .collect();
        assert_eq!(values, expected);
        let few = solutions(SCRIPT, &knobs, 3, Duration::from_secs(30)).unwrap();
        assert_eq!(few.values.len(), 3);
        assert!(!few.complete);
    }

    #[test]
    fn unsatisfiable_constraints_have_no_solution() {
        let script = "(declare-const x Int)\n(assert (> x 2))\n(assert (< x 1))\n(check-sat)\n";
        let found = solutions(script, &["x".to_string()], 10, Duration::from_secs(30)).unwrap();
        assert!(found.values.is_empty() && found.complete);
    }
}
