//! The wall's trends, kept with the journal: one sample of each cluster's
//! headline figures a minute, written by the console that records, so
//! that a wall started today draws the last seven days, whichever console
//! of several it asks.

use sqlx::{AnyConnection, Row};

use super::store::{ANSWER_WITHIN, JournalStore, PRUNE_WITHIN, StoreError, answered};
use crate::Sample;

/// At least this many seconds between two samples kept of a cluster: a
/// week of them is about 10,000 rows, read once at start.
pub const SPACING: i64 = 60;

/// How far back the wall's trends reach.
pub const REACH: i64 = 7 * 24 * 3600;

/// At most this many points drawn: a sparkline is a few hundred pixels
/// wide, and a week of samples would be 10,000.
pub const POINTS: usize = 720;

impl JournalStore {
    /// Keeps `sample` of `cluster`; a second sample of the same second is
    /// ignored.
    pub async fn add_sample(&self, cluster: &str, s: &Sample) -> Result<(), StoreError> {
        answered(ANSWER_WITHIN, async move {
            let mut conn = self.pool().acquire().await?;
            insert_sample(&mut conn, cluster, s).await
        })
        .await
    }

    /// The samples of `cluster` taken after `after`, oldest first.
    pub async fn samples_after(
        &self,
        cluster: &str,
        after: i64,
    ) -> Result<Vec<Sample>, StoreError> {
        answered(ANSWER_WITHIN, async move {
            let rows = sqlx::query(
                "SELECT at, gpu_free, gpu_total, unhealthy_gpus, not_serving, nodes_in_trouble,
                 reclaimable_bytes
             FROM samples WHERE cluster = $1 AND at > $2 ORDER BY at",
            )
            .bind(cluster.to_string())
            .bind(after)
            .fetch_all(self.pool())
            .await?;
            Ok(rows
                .iter()
                .filter_map(|r| {
                    Some(Sample {
                        at: r.try_get(0).ok()?,
                        gpu_free: r.try_get(1).ok()?,
                        gpu_total: r.try_get(2).ok()?,
                        unhealthy_gpus: r.try_get(3).ok()?,
                        not_serving: r.try_get(4).ok()?,
                        nodes_in_trouble: r.try_get(5).ok()?,
                        reclaimable_bytes: r.try_get(6).ok()?,
                    })
                })
                .collect())
        })
        .await
    }

    /// Removes the samples older than `before`.
    pub async fn prune_samples(&self, before: i64) -> Result<(), StoreError> {
        self.write(PRUNE_WITHIN, async move |mut tx| {
            sqlx::query("DELETE FROM samples WHERE at < $1")
                .bind(before)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }
}

/// `samples` (oldest first) as at most [`POINTS`] points over the same
/// span: each point the worst of the samples in its stretch of time (the
/// fewest GPUs free, the most of every trouble), dated from the stretch's
/// first, so that a spike of an hour still shows on a week's line.
pub fn thinned(samples: &[Sample]) -> Vec<Sample> {
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        return Vec::new();
    };
    if samples.len() <= POINTS {
        return samples.to_vec();
    }
    // Rounded up, so that the stretches number POINTS at most.
    let stretch = (last.at - first.at) / POINTS as i64 + 1;
    let mut points: Vec<Sample> = Vec::with_capacity(POINTS + 1);
    let mut bucket = None;
    for s in samples {
        let b = (s.at - first.at) / stretch;
        match points.last_mut() {
            Some(p) if bucket == Some(b) => {
                *p = Sample {
                    at: p.at,
                    gpu_free: p.gpu_free.min(s.gpu_free),
                    gpu_total: p.gpu_total.max(s.gpu_total),
                    unhealthy_gpus: p.unhealthy_gpus.max(s.unhealthy_gpus),
                    not_serving: p.not_serving.max(s.not_serving),
                    nodes_in_trouble: p.nodes_in_trouble.max(s.nodes_in_trouble),
                    reclaimable_bytes: p.reclaimable_bytes.max(s.reclaimable_bytes),
                };
            }
            _ => {
                bucket = Some(b);
                points.push(*s);
            }
        }
    }
    points
}

/// Keeps `s` of `cluster` on `conn` (see `JournalStore::add_sample`).
pub(super) async fn insert_sample(
    conn: &mut AnyConnection,
    cluster: &str,
    s: &Sample,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO samples (cluster, at, gpu_free, gpu_total, unhealthy_gpus,
             not_serving, nodes_in_trouble, reclaimable_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (cluster, at) DO NOTHING",
    )
    .bind(cluster.to_string())
    .bind(s.at)
    .bind(s.gpu_free)
    .bind(s.gpu_total)
    .bind(s.unhealthy_gpus)
    .bind(s.not_serving)
    .bind(s.nodes_in_trouble)
    .bind(s.reclaimable_bytes)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at: i64, trouble: i64) -> Sample {
        Sample {
            at,
            gpu_free: 100 - trouble,
            nodes_in_trouble: trouble,
            ..Sample::default()
        }
    }

    #[test]
    fn a_week_is_drawn_in_few_points_and_keeps_its_spikes() {
        let week: Vec<Sample> = (0..REACH / SPACING)
            .map(|i| sample(i * SPACING, i64::from(i == 5_000)))
            .collect();
        let points = thinned(&week);
        assert!(points.len() <= POINTS, "{}", points.len());
        assert!(points.len() >= POINTS - 1, "{}", points.len());
        assert_eq!(points.first().map(|p| p.at), Some(0));
        let (end, stretch) = (week[week.len() - 1].at, REACH / POINTS as i64 + 1);
        assert!(points.last().is_some_and(|p| end - p.at <= stretch));
        assert_eq!(points.iter().filter(|p| p.nodes_in_trouble == 1).count(), 1);
        assert_eq!(points.iter().map(|p| p.gpu_free).min(), Some(99));
    }

    #[test]
    fn a_short_record_is_drawn_whole() {
        let hour: Vec<Sample> = (0..60).map(|i| sample(i * SPACING, i % 3)).collect();
        assert_eq!(thinned(&hour), hour);
        assert!(thinned(&[]).is_empty());
    }
}
