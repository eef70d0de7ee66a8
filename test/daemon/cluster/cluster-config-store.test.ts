/**
 * The cluster's shared config in the real PostgreSQL: a change is checked against the entries
 * it joins under a lock, so two changes that are each valid but not together (setting the
 * active profile while removing it) cannot both commit; a refused change writes nothing; every
 * change NOTIFYs its version; and a node's feed puts it in force over the node's config.json.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ClusterConfigFeed } from "../../../src/daemon/cluster/cluster-config-feed.js";
import {
  ConfigEntryMissingError,
  changeStoredConfig,
  configChannel,
  readStoredConfig,
} from "../../../src/daemon/cluster/cluster-config-store.js";
import { ProviderConfigSource } from "../../../src/daemon/process/provider-config.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { checkSharedConfig } from "../../../src/home/config-overlay.js";
import { ProviderConfigError } from "../../../src/home/provider-config.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { newHome, removeTempRoots } from "../process/temp-home.js";
import { wakeUpsOn } from "./wake-ups-on.js";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const profile = { protocol: "chat_completions", baseUrl: "http://127.0.0.1:9/v1", model: "m" };

let schema: PgSchema;
let storage: PgSessionStorage;

beforeEach(async () => {
  schema = await createPgSchema("skein_cluster_config");
  storage = new PgSessionStorage(await openPgDaemonDatabase(schema.url, { max: 4 }), {
    signer: HeadSigner.generate(),
  });
});

afterEach(async () => {
  await storage.close();
  await schema.drop();
  removeTempRoots();
});

describe("the shared config store", () => {
  it("lets only one of two changes commit when together they would not check", async () => {
    await changeStoredConfig(
      storage.pool,
      { section: "providers", name: "p", value: profile },
      checkSharedConfig,
    );
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.allSettled([
        changeStoredConfig(
          storage.pool,
          { section: "settings", name: "active", value: "p" },
          checkSharedConfig,
        ),
        changeStoredConfig(storage.pool, { section: "providers", name: "p" }, checkSharedConfig),
      ]);
      // Checked one after the other, the second is refused whichever came first.
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === "rejected")!;
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(ProviderConfigError);
      const stored = await readStoredConfig(storage.pool);
      expect(() => checkSharedConfig(stored.entries)).not.toThrow();
      // Back to the round's start: the profile, and no active setting.
      if (stored.entries.some((entry) => entry.name === "active"))
        await changeStoredConfig(storage.pool, { section: "settings", name: "active" }, checkSharedConfig);
      else
        await changeStoredConfig(
          storage.pool,
          { section: "providers", name: "p", value: profile },
          checkSharedConfig,
        );
    }
  });

  it("writes nothing for a refused change or a removal of what is not there, and notifies each version", async () => {
    const listener = new pg.Client({ connectionString: schema.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(message.payload ?? ""));
    await listener.query(`LISTEN ${configChannel}`);
    try {
      const first = await changeStoredConfig(
        storage.pool,
        { section: "providers", name: "p", value: profile },
        checkSharedConfig,
      );
      expect(first.version).toBe(1);
      await expect(
        changeStoredConfig(
          storage.pool,
          { section: "providers", name: "q", value: { ...profile, apiKey: "sk" } },
          checkSharedConfig,
        ),
      ).rejects.toThrow(/never stored in the database/);
      await expect(
        changeStoredConfig(storage.pool, { section: "providers", name: "ghost" }, checkSharedConfig),
      ).rejects.toBeInstanceOf(ConfigEntryMissingError);
      const removed = await changeStoredConfig(
        storage.pool,
        { section: "providers", name: "p" },
        checkSharedConfig,
      );
      expect(removed).toEqual({ version: 2, entries: [] });
      expect(await readStoredConfig(storage.pool)).toEqual({ version: 2, entries: [] });
      const rows = await schema.query<{ name: string; value: string | null; version: string }>(
        "SELECT name, value, version FROM cluster_config",
      );
      expect(rows).toEqual([{ name: "p", value: null, version: "2" }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual(["1", "2"]);
    } finally {
      await listener.end();
    }
  });

  it("puts a change in force on another node's feed by its NOTIFY, over that node's config.json", async () => {
    const home = newHome();
    const providers = new ProviderConfigSource(home);
    // Polling once an hour: only the notification can bring the change in time.
    const feed = new ClusterConfigFeed(storage.pool, providers, quiet, 3_600_000);
    const wakeUps = await wakeUpsOn(schema.url);
    await feed.start(wakeUps);
    try {
      expect(feed.state.version).toBe(0);
      await changeStoredConfig(
        storage.pool,
        { section: "providers", name: "p", value: profile },
        checkSharedConfig,
      );
      const deadline = Date.now() + 2_000;
      while (feed.state.version !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(feed.state.version).toBe(1);
      expect(providers.resolveProfile("p").profile.model).toBe("m");
    } finally {
      feed.stop();
      await wakeUps.stop();
    }
  });
});

describe("a shared config row that is not JSON", () => {
  it("is never used: a node starts and runs on its config.json, and changes are refused until it is fixed", async () => {
    await schema.query(
      "INSERT INTO cluster_config (section, name, value, version, updated_at) VALUES ('providers', 'hand', '{oops', 1, 0)",
    );
    const stored = await readStoredConfig(storage.pool);
    expect(stored).toEqual({ version: 1, entries: [], unreadable: ["providers/hand"] });
    const errors: string[] = [];
    const logger = { ...quiet, error: (_: object, message: string) => errors.push(message) };
    const feed = new ClusterConfigFeed(storage.pool, new ProviderConfigSource(newHome()), logger, 3_600_000);
    const wakeUps = await wakeUpsOn(schema.url);
    await feed.start(wakeUps);
    try {
      expect(feed.state.error).toMatch(/entry providers\/hand is not JSON/);
      expect(errors).toEqual(["cluster config not used; the last good one stays in force"]);
      await expect(feed.change({ section: "providers", name: "p", value: profile })).rejects.toThrow(
        /providers\/hand is not JSON/,
      );
      await schema.query("UPDATE cluster_config SET value = NULL WHERE name = 'hand'");
      await feed.change({ section: "providers", name: "p", value: profile });
      expect(feed.state).toMatchObject({ version: 2, error: null });
    } finally {
      feed.stop();
      await wakeUps.stop();
    }
  });
});
