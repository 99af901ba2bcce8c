//! The search service: long-lived `std::thread` workers that run searches, so that no
//! search ever runs on a tokio worker.
//!
//! A job is a position of any game, the match's agent and a deadline; the result comes
//! back on a `tokio::sync::oneshot` channel. The [`Pending`] handle the caller keeps owns the job's
//! stop flag and raises it when dropped, so a request that goes away (or gives up waiting)
//! stops its search.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Instant;

use tokio::sync::oneshot;
use tracing::{debug, error};

use crate::agent::{Agent, Choice};
use crate::game::Game;
use crate::search::Limits;

/// A queued search, its game erased: the worker only runs it.
struct Job {
    stop: Arc<AtomicBool>,
    /// Searches and sends the result; `false` if the requester no longer waits.
    run: Box<dyn FnOnce() -> bool + Send>,
}

/// A pool of search threads fed by one queue.
pub struct SearchService {
    queue: mpsc::Sender<Job>,
    threads: usize,
    /// Stop flags of the ponder jobs queued or running: a move search raises them all, so
    /// pondering never holds up a reply.
    ponders: Mutex<Vec<Arc<AtomicBool>>>,
}

/// The search service could not take a job (its threads are gone).
#[derive(Debug, thiserror::Error)]
#[error("the search service has stopped")]
pub struct ServiceStopped;

impl SearchService {
    /// Starts `threads` worker threads (at least one).
    pub fn new(threads: usize) -> std::io::Result<SearchService> {
        let threads = threads.max(1);
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        for i in 0..threads {
            let jobs = Arc::clone(&jobs);
            thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || worker(&jobs))?;
        }
        Ok(SearchService {
            queue,
            threads,
            ponders: Mutex::new(Vec::new()),
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Queues a search of `position` by `agent` that stops at `deadline` (hard) at the
    /// latest. Every ponder job stops first, so that this search gets the threads at once.
    pub fn submit<G: Game>(
        &self,
        position: G,
        agent: Arc<Mutex<Agent<G>>>,
        deadline: Instant,
    ) -> Result<Pending<G::Move>, ServiceStopped> {
        for stop in self.ponders().drain(..) {
            stop.store(true, Ordering::Relaxed);
        }
        self.queue_job(position, agent, deadline)
    }

    /// Queues a search whose only purpose is to fill the agent's table (pondering on the
    /// opponent's time, or preparing during the start clock). It stops at `deadline`, when
    /// its handle is dropped, or as soon as any move search is submitted.
    pub fn ponder<G: Game>(
        &self,
        position: G,
        agent: Arc<Mutex<Agent<G>>>,
        deadline: Instant,
    ) -> Result<Pending<G::Move>, ServiceStopped> {
        let pending = self.queue_job(position, agent, deadline)?;
        let mut ponders = self.ponders();
        ponders.retain(|stop| !stop.load(Ordering::Relaxed));
        ponders.push(Arc::clone(&pending.stop));
        Ok(pending)
    }

    fn ponders(&self) -> std::sync::MutexGuard<'_, Vec<Arc<AtomicBool>>> {
        self.ponders.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn queue_job<G: Game>(
        &self,
        position: G,
        agent: Arc<Mutex<Agent<G>>>,
        deadline: Instant,
    ) -> Result<Pending<G::Move>, ServiceStopped> {
        let stop = Arc::new(AtomicBool::new(false));
        let (reply, result) = oneshot::channel();
        let limits = Limits::until(deadline).with_stop(Arc::clone(&stop));
        let run = move || {
            if reply.is_closed() {
                return false;
            }
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
                agent.choose(&position, &limits, &[])
            }));
            match outcome {
                Ok(choice) => {
                    // The requester may have given up: nothing to do then.
                    let _ = reply.send(choice);
                }
                // Dropping `reply` tells the requester; the thread lives on.
                Err(_) => error!("the search panicked on\n{position:?}"),
            }
            true
        };
        let job = Job {
            stop: Arc::clone(&stop),
            run: Box::new(run),
        };
        self.queue.send(job).map_err(|_| ServiceStopped)?;
        Ok(Pending { result, stop })
    }
}

/// A queued or running search. Dropping it stops the search.
pub struct Pending<M> {
    result: oneshot::Receiver<Option<Choice<M>>>,
    stop: Arc<AtomicBool>,
}

impl<M> Pending<M> {
    /// The search's choice, or `None` if it found none, failed, or is not done by
    /// `give_up_at` (the search is then stopped).
    pub async fn wait_until(mut self, give_up_at: Instant) -> Result<Option<Choice<M>>, Late> {
        let deadline = tokio::time::Instant::from_std(give_up_at);
        match tokio::time::timeout_at(deadline, &mut self.result).await {
            Ok(Ok(choice)) => Ok(choice),
            Ok(Err(_)) => Err(Late::Failed),
            Err(_) => Err(Late::TimedOut),
        }
    }
}

impl<M> Drop for Pending<M> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Why no search result is available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Late {
    #[error("the search did not finish in time")]
    TimedOut,
    #[error("the search failed")]
    Failed,
}

fn worker(jobs: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        let job = {
            let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
            match jobs.recv() {
                Ok(job) => job,
                Err(_) => return, // the service was dropped
            }
        };
        if job.stop.load(Ordering::Relaxed) || !(job.run)() {
            debug!("search job dropped before it started");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentConfig;
    use crate::games::breakthrough::spec::Breakthrough;
    use crate::games::breakthrough::{Board, BoardSize};
    use std::time::Duration;

    fn agent() -> Arc<Mutex<Agent<Board>>> {
        Arc::new(Mutex::new(Agent::new::<Breakthrough>(
            AgentConfig::default(),
        )))
    }

    #[tokio::test]
    async fn searches_off_the_runtime_and_meets_the_deadline() {
        let service = SearchService::new(2).unwrap();
        assert_eq!(service.threads(), 2);
        let board = Board::new(BoardSize::new(8, 8).unwrap());
        let start = Instant::now();
        let deadline = start + Duration::from_millis(150);
        let pending = service.submit(board.clone(), agent(), deadline).unwrap();
        let choice = pending
            .wait_until(deadline + Duration::from_millis(500))
            .await
            .unwrap()
            .unwrap();
        // Generous: the machine may be busy; this checks that the deadline is kept at all.
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        assert!(board.find_move(1, 2, 1, 3).is_some());
        let (x1, y1, x2, y2) = board.move_coords(choice.mv);
        assert_eq!(
            board.find_move(x1 as u32, y1 as u32, x2 as u32, y2 as u32),
            Some(choice.mv)
        );
    }

    #[tokio::test]
    async fn a_move_search_stops_pondering_at_once() {
        // One thread: the move search can only run once the ponder job has let go.
        let service = SearchService::new(1).unwrap();
        let board = Board::new(BoardSize::new(10, 10).unwrap());
        let agent = agent();
        let far = Instant::now() + Duration::from_secs(3600);
        let ponder = service.ponder(board.clone(), agent.clone(), far).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let start = Instant::now();
        let soon = start + Duration::from_millis(100);
        let pending = service.submit(board, agent, soon).unwrap();
        let choice = pending.wait_until(soon + Duration::from_secs(2)).await;
        assert!(choice.unwrap().is_some());
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
        // The ponder job ended (stopped), its handle still held.
        let r = ponder
            .wait_until(Instant::now() + Duration::from_secs(2))
            .await;
        assert!(
            r.unwrap().is_some(),
            "a stopped ponder still returns a move"
        );
    }

    #[tokio::test]
    async fn dropping_the_handle_stops_the_search() {
        let service = SearchService::new(1).unwrap();
        let board = Board::new(BoardSize::new(10, 10).unwrap());
        let far = Instant::now() + Duration::from_secs(3600);
        let pending = service.submit(board.clone(), agent(), far).unwrap();
        // Give up at once: the worker must become free quickly.
        let r = pending
            .wait_until(Instant::now() + Duration::from_millis(50))
            .await;
        assert_eq!(r.unwrap_err(), Late::TimedOut);
        let start = Instant::now();
        let soon = start + Duration::from_millis(100);
        let pending = service.submit(board, agent(), soon).unwrap();
        let choice = pending.wait_until(soon + Duration::from_secs(2)).await;
        assert!(choice.unwrap().is_some());
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }
}
