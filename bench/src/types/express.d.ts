// The part of Express 5's API the comparison server uses (no @types/express in the workspace).
declare module 'express' {
  import type { Server } from 'node:http';

  /** An incoming request. */
  export interface Request {
    header(name: string): string | undefined;
  }
  /** The response under way. */
  export interface Response {
    json(body: unknown): void;
  }
  /** Passes control to the next handler. */
  export type NextFunction = (error?: unknown) => void;
  /** A route handler. */
  export type Handler = (req: Request, res: Response, next: NextFunction) => void;
  /** What routes are added to. */
  export interface IRouter {
    get(path: string, handler: Handler): IRouter;
  }
  /** An application. */
  export interface Express extends IRouter {
    disable(setting: string): Express;
    listen(port: number, host: string): Server;
  }
  /** Creates an application. */
  export default function express(): Express;
}
