/**
 * Types of the parts of dynalite (the embedded DynamoDB) this project uses; the package ships none.
 */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }

  export default function dynalite(options?: DynaliteOptions): Server;
}
