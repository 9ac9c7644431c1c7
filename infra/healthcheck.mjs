// Container health check (Dockerfile HEALTHCHECK): is every role this process serves alive?
// Roles, ports and the admin token come from the same environment variables `fundus serve` reads
// (FUNDUS_ROLES, FUNDUS_PORT, FUNDUS_WEB_PORT, FUNDUS_ADMIN_PORT, FUNDUS_ADMIN_TOKEN): without an
// explicit role list, serve runs the admin panel only when a token is set, and so is it checked.
// Liveness only: any HTTP answer below 500 from /healthz counts; readiness (/readyz) is for the
// proxy and the orchestrator to decide on.
const explicit = (process.env.FUNDUS_ROLES || '').split(',').map((r) => r.trim()).filter(Boolean);
const roles = explicit.length > 0 ? explicit : ['gateway', 'web', ...(process.env.FUNDUS_ADMIN_TOKEN ? ['admin'] : [])];
const ports = {
  gateway: process.env.FUNDUS_PORT || '8082',
  web: process.env.FUNDUS_WEB_PORT || '8080',
  admin: process.env.FUNDUS_ADMIN_PORT || '8081',
};

let healthy = true;
for (const role of roles) {
  const url = `http://127.0.0.1:${ports[role]}/healthz`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
  } catch (error) {
    console.error(`${role}: ${url}: ${error instanceof Error ? error.message : String(error)}`);
    healthy = false;
  }
}
process.exit(healthy ? 0 : 1);
