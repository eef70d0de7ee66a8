/**
 * The schedules page (`#/schedules`): every schedule the daemon keeps (`GET /schedules`, page
 * after page), with its timing, time zone, target session, next and last firing, the state of
 * the last firing's turn, and whether it is paused. Read only: `skein schedule` adds, pauses and removes them.
 */
import { useEffect, useState } from "react";
import { allSchedulePages } from "../../../src/api/schedule-pages.js";
import type { Schedule, ScheduleList } from "../../../src/api/schedules.js";
import { call } from "../daemon-api.js";

/** The whole schedules page. */
export function SchedulesPage() {
  const [schedules, setSchedules] = useState<Schedule[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    allSchedulePages((path) => call<ScheduleList>("GET", path))
      .then(setSchedules)
      .catch((error: unknown) => setFailure(error instanceof Error ? error.message : String(error)));
  }, []);
  return (
    <main className="schedules" data-testid="schedules-page">
      <h2>Schedules</h2>
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
      <table className="session-list" data-testid="schedule-list">
        <thead>
          <tr>
            <th>Schedule</th>
            <th>Next firing</th>
            <th>Last firing</th>
            <th>Last turn</th>
          </tr>
        </thead>
        <tbody>
          {(schedules ?? []).map((schedule) => (
            <ScheduleRow key={schedule.id} schedule={schedule} />
          ))}
        </tbody>
      </table>
      {schedules !== null && schedules.length === 0 ? (
        <p className="empty">
          No schedules yet: <code>skein schedule add</code> makes one.
        </p>
      ) : null}
    </main>
  );
}

function ScheduleRow({ schedule }: { schedule: Schedule }) {
  const session = schedule.session_id ?? schedule.last_session_id;
  return (
    <tr data-schedule={schedule.id}>
      <td>
        {schedule.id}
        <div className="sub">
          {timingText(schedule)} · {targetText(schedule)}
          {session === null ? null : (
            <>
              {" · "}
              <a href={`#/sessions/${session}`}>open session</a>
            </>
          )}
        </div>
      </td>
      <td data-field="next">{schedule.paused ? "paused" : timeText(schedule.next_fire_at)}</td>
      <td data-field="last">{timeText(schedule.last_fired_at)}</td>
      <td data-field="outcome">
        {schedule.last_turn?.state ?? (schedule.last_fired_at === null ? "—" : "waiting")}
      </td>
    </tr>
  );
}

/** The cron expression and its time zone, or the one-shot time. */
function timingText(schedule: Schedule): string {
  if (schedule.cron === null) return `at ${timeText(schedule.at)}`;
  return `${schedule.cron} (${schedule.timezone ?? "UTC"})`;
}

function targetText(schedule: Schedule): string {
  return schedule.session_id === null
    ? `new session in ${schedule.new_session?.workspace ?? "?"}`
    : `session ${schedule.session_id.slice(0, 8)}`;
}

function timeText(iso: string | null): string {
  return iso === null ? "none" : new Date(iso).toLocaleString();
}
