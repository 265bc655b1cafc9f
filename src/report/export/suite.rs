//! A suite's saves: each test judged once as it ends (its warnings and
//! verdict serve its row, stderr and every later save), the suite's files
//! rewritten after every test, and the final copy at the end.

use super::{ExportManager, Judgement, Save, Subject, SuiteView};
use crate::error::OutputError;
use crate::report::model::Report;
use crate::report::suite::StepResult;
use crate::report::verdict::Verdict;
use crate::report::{ReportInput, build};

/// What the end of a suite wrote.
pub struct SuiteWritten {
    /// Every output that could not be written, each named.
    pub failures: Vec<OutputError>,
    /// A save after some test failed.
    pub save_failed: bool,
    /// Every test's findings, each named by its test.
    pub verdict: Verdict,
}

impl ExportManager {
    /// A test ended (the last of `done`): its judgement and its report, what
    /// its row is read from, and the suite's files so far.
    pub fn step(&mut self, done: &[StepResult], planned: usize) -> (Judgement, Report) {
        let inputs = self.step_inputs(done);
        let judged = inputs.last().map(|i| (Judgement::of(i), build::report(i)));
        let view = SuiteView {
            done,
            inputs: &inputs,
            planned,
            complete: false,
        };
        self.save_progress(&Subject::Suite(&view));
        judged.expect("a test ended")
    }

    /// The suite ended: its files, complete when every planned test ran.
    pub fn finish_suite(
        mut self,
        done: &[StepResult],
        planned: usize,
        complete: bool,
    ) -> SuiteWritten {
        let inputs = self.step_inputs(done);
        let view = SuiteView {
            done,
            inputs: &inputs,
            planned,
            complete,
        };
        let failures = self.save(&Subject::Suite(&view), Save::Final);
        let verdict = Verdict::of_parts(
            done.iter()
                .zip(&inputs)
                .map(|(r, input)| (r.step.name(), &input.verdict)),
        );
        SuiteWritten {
            failures,
            save_failed: self.save_failed,
            verdict,
        }
    }

    /// Every test's report input, each judged once.
    fn step_inputs<'a>(&mut self, done: &'a [StepResult]) -> Vec<ReportInput<'a>> {
        done.iter()
            .enumerate()
            .map(|(i, r)| {
                let (config, results) = (&r.step.config, &r.results);
                let complete = results.is_complete();
                if let Some(judged) = self.judged.get(i) {
                    return judged.input(config, results, complete);
                }
                let input = ReportInput::new(config, results, complete);
                self.judged.push(Judgement::of(&input));
                input
            })
            .collect()
    }
}
