// The logger access components write to: the fastify/pino logger, or a test double. Access code
// logs state changes only; never keys, tokens, names of keys, query text, bodies or client IPs.
export interface AccessLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentLog: AccessLog = { info() {}, warn() {}, error() {} };
