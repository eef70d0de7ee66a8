// What the daemon's bundle gets for `import … from "undici"` (scripts/bundle-daemon.mjs maps
// the package here): undici's Agent, whose dispatchers carry the request API as they do when
// undici's own index loads. The daemon uses nothing else of undici (src/providers/http-stream.ts);
// the index also loads fetch, WebSocket, EventSource, the caches and mocks, and, through a
// global one of them reads, Node's own copy of undici: about 0.7 MB of code every daemon start
// parsed and ran for nothing. An import of anything else from "undici" fails the bundle's build
// ("No matching export"), so this file must grow with the daemon's use. Its imports name undici's
// files by path: the alias maps every "undici/…" specifier here, subpaths included.

import api from "../node_modules/undici/lib/api/index.js";
import Agent from "../node_modules/undici/lib/dispatcher/agent.js";
import Dispatcher from "../node_modules/undici/lib/dispatcher/dispatcher.js";

Object.assign(Dispatcher.prototype, api);

export { Agent };
