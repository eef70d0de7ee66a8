/**
 * `GET /config` (where `skein config` writes, and the config in force here) and, on a cluster,
 * the changes of its shared config: `PUT`/`DELETE /config/profiles/{name}`,
 * `/config/mcp-servers/{name}` and `/config/settings/{name}`. A change is checked exactly as
 * config.json is, and over this node's own config.json, before anything is written; a config
 * that does not check is a 400 naming the problem, and nothing changes. Every node has the
 * change within milliseconds (NOTIFY) or the next poll.
 *
 * Boundary rule: validation and translation only; the store and the checks are the cluster's
 * (cluster-config-feed.ts). A daemon on SQLite answers 409 `config_not_shared` to a change: its
 * config is its home's config.json, which `skein config` edits.
 */
import { Type } from "typebox";
import type { ConfigSettingBody, ConfigView } from "../../api/config.js";
import {
  ConfigEntryBodySchema,
  ConfigSettingBodySchema,
  ConfigViewSchema,
} from "../../api/schemas/config.js";
import { type ConfigSection, isCredentialHeader } from "../../home/config-overlay.js";
import { ProviderConfigError } from "../../home/provider-config.js";
import type { ClusterConfigFeed } from "../cluster/cluster-config-feed.js";
import { ConfigEntryMissingError } from "../cluster/cluster-config-store.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import type { ProviderConfigSource } from "../process/provider-config.js";
import { answerWith } from "./daemon-problem.js";

/** What the config routes read and change. */
export interface ConfigRouteOptions {
  providers: ProviderConfigSource;
  /** The cluster's shared config; null on SQLite. */
  shared: ClusterConfigFeed | null;
}

const nameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

/** Register `GET /config` and the change routes. */
export function registerConfigRoutes(app: HttpApp, options: ConfigRouteOptions): void {
  registerResource(app, "/config", {
    GET: {
      schema: { response: { 200: ConfigViewSchema } },
      config: {
        role: "admin",
        doc: {
          summary: "Where `skein config` writes, and the config in force on this daemon",
          description:
            "API keys are never answered: a profile's `apiKey`, and the value of a credential header, read `(stored)`.",
        },
      },
      handler: async (): Promise<ConfigView> => configView(options),
    },
  });
  const entryRoute = (path: string, section: ConfigSection, what: string) =>
    registerResource(app, path, {
      PUT: {
        schema: { params: nameParams, body: ConfigEntryBodySchema, response: { 200: ConfigViewSchema } },
        config: {
          role: "admin",
          doc: { summary: `Set a ${what} of the cluster's shared config (PostgreSQL)` },
        },
        handler: async (request) => {
          const { name } = request.params as { name: string };
          return change(options, { section, name, value: request.body });
        },
      },
      DELETE: {
        schema: { params: nameParams, response: { 200: ConfigViewSchema } },
        config: {
          role: "admin",
          doc: { summary: `Remove a ${what} from the cluster's shared config (PostgreSQL)` },
        },
        handler: async (request) => {
          const { name } = request.params as { name: string };
          return change(options, { section, name });
        },
      },
    });
  entryRoute("/config/profiles/:name", "providers", "provider profile");
  entryRoute("/config/mcp-servers/:name", "mcpServers", "MCP server");
  registerResource(app, "/config/settings/:name", {
    PUT: {
      schema: { params: nameParams, body: ConfigSettingBodySchema, response: { 200: ConfigViewSchema } },
      config: {
        role: "admin",
        doc: {
          summary:
            "Set `active`, `approvalPolicy`, `maxToolRounds` or `budgets` in the cluster's shared config",
        },
      },
      handler: async (request) => {
        const { name } = request.params as { name: string };
        const { value } = request.body as ConfigSettingBody;
        if (value === undefined) throw problem("invalid_request", "the body needs a `value`");
        return change(options, { section: "settings", name, value });
      },
    },
    DELETE: {
      schema: { params: nameParams, response: { 200: ConfigViewSchema } },
      config: { role: "admin", doc: { summary: "Remove a setting from the cluster's shared config" } },
      handler: async (request) => {
        const { name } = request.params as { name: string };
        return change(options, { section: "settings", name });
      },
    },
  });
}

async function change(
  options: ConfigRouteOptions,
  entry: { section: ConfigSection; name: string; value?: unknown },
): Promise<ConfigView> {
  const shared = options.shared;
  if (shared === null) {
    throw problem(
      "config_not_shared",
      "this daemon's config is its home's config.json (the daemon runs on SQLite): edit it with `skein config`",
    );
  }
  return answerWith(async () => {
    try {
      await shared.change(entry);
    } catch (error) {
      if (error instanceof ProviderConfigError) throw problem("invalid_request", error.message);
      if (error instanceof ConfigEntryMissingError) throw problem("resource_not_found", error.message);
      throw error;
    }
    return configView(options);
  });
}

function configView(options: ConfigRouteOptions): ConfigView {
  const config = options.providers.current();
  const state = options.shared?.state ?? null;
  const sharedProfiles = new Set(
    (state?.entries ?? []).filter((entry) => entry.section === "providers").map((entry) => entry.name),
  );
  const providers: ConfigView["providers"] = {};
  for (const [name, profile] of Object.entries(config.providers)) {
    const shown: Record<string, unknown> = { ...profile };
    if (shown.apiKey !== undefined) shown.apiKey = "(stored)";
    if (profile.headers !== undefined)
      shown.headers = Object.fromEntries(
        Object.entries(profile.headers).map(([name, value]) => [
          name,
          isCredentialHeader(name) ? "(stored)" : value,
        ]),
      );
    providers[name] = { shared: sharedProfiles.has(name), profile: shown };
  }
  const errors = [options.providers.lastError?.message ?? null, state?.error ?? null].filter(
    (message): message is string => message !== null,
  );
  return {
    source: options.shared === null ? "file" : "database",
    version: state?.version ?? 0,
    active: config.active ?? null,
    providers,
    shared_entries: (state?.entries ?? []).map(({ section, name }) => ({ section, name })),
    error: errors.length === 0 ? null : errors.join("; "),
  };
}
