//! The search over `--rate`, as a state machine with no I/O: it says which
//! rate to try next, is told whether that step met the SLO, and ends with the
//! interval where the capacity lies. Growth doubles the rate until a step
//! fails; bisection then halves the interval until it is narrower than
//! `--resolution` of its lower end. Running a step is the caller's
//! ([`crate::tools::capacity`]), so the same search drives one machine or a
//! fleet, and tests drive it with a simulated server.

/// Why the rate grows by this factor while every step meets: a doubling
/// reaches any capacity from the start rate in log2 steps, and the failing
/// step it overshoots to is at most twice the capacity, so the bisection
/// starts from an interval no wider than the capacity itself.
const GROWTH: f64 = 2.0;

/// The search's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// The first rate tried, ops/s.
    pub start_rate: f64,
    /// The interval is narrow enough once high − low ≤ resolution × low.
    pub resolution: f64,
    /// Steps at most (a repeated step counts once).
    pub max_steps: u32,
}

/// What the search wants next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Run a step at this rate, ops/s.
    Step(f64),
    /// The search is over.
    Done(Outcome),
}

/// How the search ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// The capacity is in [low, high): `low` met the SLO, `high` did not,
    /// and they are within the resolution.
    Found {
        /// The highest rate that met the SLO.
        low: f64,
        /// The lowest rate that failed it.
        high: f64,
    },
    /// `--max-steps` ran out before the interval was narrow: what is known.
    Unfinished {
        /// The highest rate that met the SLO, if any did.
        low: Option<f64>,
        /// The lowest rate that failed it, if any did.
        high: Option<f64>,
    },
    /// Even the lowest rate the search may try failed.
    NoneMeets {
        /// The lowest rate tried.
        lowest: f64,
    },
}

impl Outcome {
    /// The capacity to confirm: the highest rate that met the SLO.
    pub fn capacity(&self) -> Option<f64> {
        match *self {
            Outcome::Found { low, .. } => Some(low),
            Outcome::Unfinished { low, .. } => low,
            Outcome::NoneMeets { .. } => None,
        }
    }
}

/// The lowest rate the search goes down to: below one request a second a
/// step of a few seconds holds too few samples to judge any percentile.
pub const MIN_RATE: f64 = 1.0;

/// The search so far.
#[derive(Debug, Clone)]
pub struct Search {
    plan: Plan,
    /// The highest rate that met the SLO.
    low: Option<f64>,
    /// The lowest rate that failed it.
    high: Option<f64>,
    /// The lowest rate tried.
    lowest: f64,
    /// Steps decided.
    steps: u32,
    /// Every rate that met, so that a refuted one gives way to the next below.
    met: Vec<f64>,
}

impl Search {
    /// A search that has tried nothing.
    pub fn new(plan: Plan) -> Search {
        Search {
            plan,
            low: None,
            high: None,
            lowest: f64::INFINITY,
            steps: 0,
            met: Vec::new(),
        }
    }

    /// The highest rate that met the SLO so far.
    pub fn low(&self) -> Option<f64> {
        self.low
    }

    /// The lowest rate that failed it so far.
    pub fn high(&self) -> Option<f64> {
        self.high
    }

    /// Steps decided so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The step at `rate` met the SLO (`meets`) or did not.
    pub fn record(&mut self, rate: f64, meets: bool) {
        self.steps += 1;
        self.lowest = self.lowest.min(rate);
        if meets {
            self.low = Some(self.low.map_or(rate, |l| l.max(rate)));
            self.met.push(rate);
        } else {
            self.high = Some(self.high.map_or(rate, |h| h.min(rate)));
        }
    }

    /// A later, longer run at `rate` (the confirmation) missed the SLO: the
    /// rate fails after all, and the highest rate below it that met is the
    /// search's low again.
    pub fn refute(&mut self, rate: f64) {
        self.high = Some(self.high.map_or(rate, |h| h.min(rate)));
        self.met.retain(|&r| r < rate);
        self.low = self.met.iter().copied().reduce(f64::max);
    }

    /// The next rate to try, or the end of the search.
    pub fn next(&self) -> Next {
        let narrow = |low: f64, high: f64| high - low <= self.plan.resolution * low;
        let next = match (self.low, self.high) {
            (None, None) => self.plan.start_rate,
            (Some(low), None) => low * GROWTH,
            (None, Some(high)) => {
                // Everything tried failed: halve down, to a floor.
                if high <= MIN_RATE {
                    return Next::Done(Outcome::NoneMeets {
                        lowest: self.lowest,
                    });
                }
                (high / GROWTH).max(MIN_RATE)
            }
            (Some(low), Some(high)) if narrow(low, high) => {
                return Next::Done(Outcome::Found { low, high });
            }
            (Some(low), Some(high)) => (low + high) / 2.0,
        };
        if self.steps >= self.plan.max_steps {
            return Next::Done(Outcome::Unfinished {
                low: self.low,
                high: self.high,
            });
        }
        Next::Step(next)
    }
}

#[cfg(test)]
mod tests {
    use super::{MIN_RATE, Next, Outcome, Plan, Search};

    /// Runs the search against a server that meets the SLO below
    /// `capacity` ops/s; the rates it tried, in order.
    fn search(plan: Plan, capacity: f64) -> (Outcome, Vec<f64>) {
        let mut s = Search::new(plan);
        let mut tried = Vec::new();
        loop {
            match s.next() {
                Next::Step(rate) => {
                    tried.push(rate);
                    s.record(rate, rate <= capacity);
                }
                Next::Done(outcome) => return (outcome, tried),
            }
        }
    }

    const PLAN: Plan = Plan {
        start_rate: 100.0,
        resolution: 0.02,
        max_steps: 40,
    };

    #[test]
    fn grows_by_doubling_then_bisects_to_the_resolution() {
        let (outcome, tried) = search(PLAN, 850.0);
        assert_eq!(&tried[..5], &[100.0, 200.0, 400.0, 800.0, 1600.0]);
        assert_eq!(tried[5], 1200.0);
        let Outcome::Found { low, high } = outcome else {
            panic!("{outcome:?}");
        };
        assert!(low <= 850.0 && 850.0 < high, "{low}..{high}");
        assert!(high - low <= 0.02 * low, "{low}..{high}");
        // log2(800 / 16) ≈ 5.6: six halvings of [800, 1600) reach 2 %.
        assert_eq!(tried.len(), 5 + 6, "{tried:?}");
    }

    #[test]
    fn a_failing_start_halves_down_until_a_rate_meets() {
        let (outcome, tried) = search(PLAN, 30.0);
        assert_eq!(&tried[..3], &[100.0, 50.0, 25.0]);
        let Outcome::Found { low, high } = outcome else {
            panic!("{outcome:?}");
        };
        assert!(low <= 30.0 && 30.0 < high && high - low <= 0.02 * low);
    }

    #[test]
    fn a_server_that_meets_nothing_ends_at_the_floor() {
        let (outcome, tried) = search(PLAN, 0.0);
        assert_eq!(outcome, Outcome::NoneMeets { lowest: MIN_RATE });
        assert_eq!(tried.last(), Some(&MIN_RATE));
        assert_eq!(outcome.capacity(), None);
    }

    #[test]
    fn a_refuted_capacity_gives_way_to_the_rates_below_it() {
        let mut s = Search::new(Plan {
            start_rate: 100.0,
            resolution: 0.05,
            max_steps: 50,
        });
        for (rate, meets) in [(100.0, true), (200.0, true), (400.0, false), (300.0, true)] {
            s.record(rate, meets);
        }
        s.refute(300.0);
        assert_eq!((s.low(), s.high()), (Some(200.0), Some(300.0)));
        assert!(matches!(s.next(), Next::Step(r) if r == 250.0));
        // Refuting every rate that met leaves none.
        s.refute(100.0);
        assert_eq!((s.low(), s.high()), (None, Some(100.0)));
    }

    #[test]
    fn max_steps_ends_with_what_is_known() {
        let plan = Plan {
            max_steps: 3,
            ..PLAN
        };
        let (outcome, tried) = search(plan, 1e9);
        assert_eq!(tried, vec![100.0, 200.0, 400.0]);
        assert_eq!(
            outcome,
            Outcome::Unfinished {
                low: Some(400.0),
                high: None
            }
        );
        assert_eq!(outcome.capacity(), Some(400.0));
    }

    #[test]
    fn a_noisy_server_still_ends_inside_its_interval() {
        // A step near the capacity may be judged either way; the answer is
        // still an interval whose ends met and failed.
        let mut s = Search::new(PLAN);
        let mut flip = false;
        while let Next::Step(rate) = s.next() {
            let meets = if (rate - 1000.0).abs() < 100.0 {
                flip = !flip;
                flip
            } else {
                rate < 1000.0
            };
            s.record(rate, meets);
        }
        let (low, high) = (s.low().unwrap(), s.high().unwrap());
        assert!(
            low < high && (850.0..1150.0).contains(&low),
            "{low}..{high}"
        );
    }
}
