/**
 * An audit of which node wrote each log row, for cluster fault tests: a trigger on `transcript`
 * records, for every entry inserted, the writing connection's application name (each node
 * connects as `node<i>`) and the session's lease as that transaction saw it (the fence holds
 * the lease row locked, so it is the lease the write was checked against). The check: every
 * entry was written by the node that held the session's lease.
 *
 * Boundary rule: test support, on a database the test owns.
 */

/** Creates the audit table and the trigger that fills it (run once the daemon made its tables). */
export const auditTrigger = `
CREATE TABLE fault_audit (session TEXT, position BIGINT, writer TEXT, lease_node TEXT, lease_epoch BIGINT, at TIMESTAMPTZ DEFAULT clock_timestamp());
CREATE FUNCTION fault_audit_row() RETURNS trigger AS $$
BEGIN
  INSERT INTO fault_audit (session, position, writer, lease_node, lease_epoch)
  SELECT NEW.session, NEW.position, current_setting('application_name'), l.node_id, l.epoch
  FROM (SELECT 1) one LEFT JOIN session_leases l ON l.session = NEW.session;
  RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER fault_audit AFTER INSERT ON transcript FOR EACH ROW EXECUTE FUNCTION fault_audit_row();
`;

/** One audited entry. */
export interface AuditRow {
  session: string;
  position: number | string;
  writer: string;
  lease_node: string | null;
}

export const auditRowsQuery = "SELECT session, position, writer, lease_node FROM fault_audit";

/**
 * The entries not written by their lease holder, as sentences; `instances` maps each node
 * instance id (a lease's `node_id`, new at each restart) to the node's index.
 */
export function auditViolations(rows: readonly AuditRow[], instances: ReadonlyMap<string, number>): string[] {
  const violations: string[] = [];
  for (const row of rows) {
    const writer = /^node(\d)$/.exec(row.writer)?.[1];
    const holder = row.lease_node === null ? undefined : instances.get(row.lease_node);
    // A session's first entry is written before its lease, in the creating transaction.
    if (row.lease_node === null && Number(row.position) === 0) continue;
    if (writer === undefined || holder === undefined || Number(writer) !== holder)
      violations.push(
        `entry ${row.position} of ${row.session} was written by ${row.writer} while node ${holder ?? row.lease_node} held the lease`,
      );
  }
  return violations;
}
