//! `--shard`: which share of the work this process takes, given as `K/N` or read from the
//! scheduler that started it (`auto`, `auto/N`).
//!
//! Teams spread tuning over the schedulers they already run; each says a task's index its own
//! way, and tunespec reads them rather than asking every job script to translate:
//! - **Slurm job arrays**: `SLURM_ARRAY_TASK_ID` among `SLURM_ARRAY_TASK_MIN`, `_MAX` and
//!   `_STEP` (`--array=1-15:2`). The IDs of an array need not start at 0 or 1, nor be
//!   consecutive, so K is the rank of the ID among the array's IDs and N their count; an array
//!   given as a list (`--array=1,4,9`) has no step in the environment, and its rank cannot be
//!   known from it: a clear error asks for `K/N`.
//! - **Kubernetes Indexed Jobs**: `JOB_COMPLETION_INDEX` (0-based). The number of completions
//!   is not in the pod's environment: `auto/N` says it.
//! - **torchrun, Ray Train and other launchers**: `RANK` (0-based) and `WORLD_SIZE`.
//!
//! The first scheduler whose variables are set answers; `auto/N` checks N against what the
//! scheduler says, where it says it.

/// `--shard` as written: a fixed share, or the scheduler's index to be read from the
/// settings' environment when the command runs ([`Spec::resolve`]). Why two steps: the command
/// line is parsed before the settings exist, and the scheduler's variables are settings like any
/// other (a program that embeds the library passes its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `K/N`, checked: 1 <= K <= N.
    Fixed(u32, u32),
    /// `auto` or `auto/N`.
    Auto(Option<u32>),
}

impl Spec {
    /// `K/N`, `auto` or `auto/N`; the error says what is wrong and what would do.
    pub fn parse(text: &str) -> Result<Spec, String> {
        let text = text.trim();
        let (first, count) = match text.split_once('/') {
            Some((first, count)) => (first.trim(), Some(number(count, "N")?)),
            None => (text, None),
        };
        if first == "auto" {
            if count == Some(0) {
                return Err("shard auto/0: N must be at least 1".into());
            }
            return Ok(Spec::Auto(count));
        }
        let Some(count) = count else {
            return Err("expected K/N (e.g. 2/8), auto (the scheduler's index) or auto/N".into());
        };
        let (k, n) = checked(number(first, "K")?, count)?;
        Ok(Spec::Fixed(k, n))
    }

    /// The shard, 1-based (K, N), the scheduler's variables read from `env`.
    pub fn resolve(self, env: &crate::config::Environment) -> Result<(u32, u32), String> {
        self.resolve_with(&|name| {
            env.get(name)
                .map(|value| value.to_string_lossy().into_owned())
        })
    }

    /// [`Spec::resolve`] with a variable lookup.
    fn resolve_with(self, env: &dyn Fn(&str) -> Option<String>) -> Result<(u32, u32), String> {
        let count = match self {
            Spec::Fixed(k, n) => return Ok((k, n)),
            Spec::Auto(count) => count,
        };
        let (index, scheduler_count, scheduler) = from_scheduler(env)?;
        let count = match (count, scheduler_count) {
            (Some(given), Some(said)) if given != said => {
                return Err(format!(
                    "--shard auto/{given}: {scheduler} says there are {said} tasks"
                ))
            }
            (Some(given), _) => given,
            (None, Some(said)) => said,
            (None, None) => {
                return Err(format!(
                    "--shard auto: {scheduler} does not say how many tasks there are: give auto/N (N: the job's completions)"
                ))
            }
        };
        checked(index + 1, count).map_err(|error| format!("{scheduler}: {error}"))
    }
}

/// The shard `text` names (`K/N`, `auto` or `auto/N`), 1-based: (K, N) with 1 <= K <= N.
/// `env` looks a variable up. The error says what is wrong and what would do.
pub fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<(u32, u32), String> {
    Spec::parse(text)?.resolve_with(env)
}

fn number(text: &str, what: &str) -> Result<u32, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{what} '{}' is not a number", text.trim()))
}

fn checked(k: u32, n: u32) -> Result<(u32, u32), String> {
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: K must be between 1 and N"));
    }
    Ok((k, n))
}

/// The 0-based index of this task among the scheduler's, their count when the scheduler says
/// it, and the scheduler's name for messages.
fn from_scheduler(
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(u32, Option<u32>, &'static str), String> {
    let get = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    let int = |name: &str| -> Result<Option<u64>, String> {
        get(name)
            .map(|value| {
                value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| format!("{name}={value} is not a number"))
            })
            .transpose()
    };
    if let Some(id) = int("SLURM_ARRAY_TASK_ID")? {
        let (min, max) = (int("SLURM_ARRAY_TASK_MIN")?, int("SLURM_ARRAY_TASK_MAX")?);
        let (Some(min), Some(max)) = (min, max) else {
            return Err(
                "a Slurm array task without SLURM_ARRAY_TASK_MIN and _MAX: give --shard K/N".into(),
            );
        };
        let Some(step) = int("SLURM_ARRAY_TASK_STEP")? else {
            return Err(format!(
                "a Slurm array given as a list (no SLURM_ARRAY_TASK_STEP): task {id}'s rank among the array's IDs is not in the environment: give --shard K/N"
            ));
        };
        if step == 0 || id < min || id > max || (id - min) % step != 0 {
            return Err(format!(
                "SLURM_ARRAY_TASK_ID={id} is not in the array {min}-{max}:{step}"
            ));
        }
        let count = (max - min) / step + 1;
        if let Some(said) = int("SLURM_ARRAY_TASK_COUNT")? {
            if said != count {
                return Err(format!(
                    "the Slurm array {min}-{max}:{step} has {count} tasks, SLURM_ARRAY_TASK_COUNT says {said}: give --shard K/N"
                ));
            }
        }
        let fit =
            |value: u64| u32::try_from(value).map_err(|_| "a Slurm array too large".to_string());
        return Ok((
            fit((id - min) / step)?,
            Some(fit(count)?),
            "the Slurm array",
        ));
    }
    if let Some(index) = int("JOB_COMPLETION_INDEX")? {
        let index = u32::try_from(index).map_err(|_| "JOB_COMPLETION_INDEX is too large")?;
        return Ok((index, None, "the Kubernetes Indexed Job"));
    }
    if let Some(rank) = int("RANK")? {
        let Some(size) = int("WORLD_SIZE")? else {
            return Err("RANK is set without WORLD_SIZE: give --shard K/N".into());
        };
        let fit = |value: u64| {
            u32::try_from(value).map_err(|_| "RANK or WORLD_SIZE too large".to_string())
        };
        return Ok((fit(rank)?, Some(fit(size)?), "RANK/WORLD_SIZE"));
    }
    Err("--shard auto: no scheduler's index in the environment (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, RANK with WORLD_SIZE): give --shard K/N".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        }
    }

    #[test]
    fn explicit_shards_are_checked() {
        let none = with(&[]);
        assert_eq!(parse("2/8", &none), Ok((2, 8)));
        assert!(parse("0/8", &none).is_err());
        assert!(parse("9/8", &none).is_err());
        assert!(parse("x/8", &none).unwrap_err().contains("not a number"));
        assert!(parse("3", &none).unwrap_err().contains("expected K/N"));
    }

    #[test]
    fn a_slurm_array_s_rank_counts_its_ids_not_their_values() {
        // --array=1-7:2 is IDs 1, 3, 5, 7: ID 5 is the third of four.
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(parse("auto", &with(&slurm)), Ok((3, 4)));
        assert_eq!(parse("auto/4", &with(&slurm)), Ok((3, 4)));
        assert!(parse("auto/5", &with(&slurm))
            .unwrap_err()
            .contains("says there are 4"));
        let list = [
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert!(parse("auto", &with(&list)).unwrap_err().contains("list"));
        let outside = [
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ];
        assert!(parse("auto", &with(&outside))
            .unwrap_err()
            .contains("not in the array"));
    }

    #[test]
    fn kubernetes_needs_n_and_launchers_give_both() {
        let k8s = [("JOB_COMPLETION_INDEX", "0")];
        assert_eq!(parse("auto/3", &with(&k8s)), Ok((1, 3)));
        assert!(parse("auto", &with(&k8s)).unwrap_err().contains("auto/N"));
        assert!(parse("auto/0", &with(&k8s)).is_err());
        let torchrun = [("RANK", "3"), ("WORLD_SIZE", "4")];
        assert_eq!(parse("auto", &with(&torchrun)), Ok((4, 4)));
        assert!(parse("auto", &with(&[("RANK", "1")]))
            .unwrap_err()
            .contains("WORLD_SIZE"));
        assert!(parse("auto", &with(&[]))
            .unwrap_err()
            .contains("no scheduler's index"));
    }
}
