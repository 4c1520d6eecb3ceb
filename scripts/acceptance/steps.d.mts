// Types of steps.mjs, for the unit tests that import it.
export interface StepResult {
  name: string;
  ok: boolean;
  ms: number;
}
export declare const seconds: (ms: number) => string;
export declare function failureText(error: unknown): string;
export declare const summaryLine: (results: readonly StepResult[]) => string;
export declare function stepLog(write: (line: string) => void): {
  results: StepResult[];
  step(name: string, body: () => unknown): Promise<boolean>;
  summary(): string;
  failed(): number;
};
export declare function inJourneyRoot<T>(prefix: string, keep: boolean | undefined, body: (root: string) => Promise<T>): Promise<T>;
export declare function runGate(log: ReturnType<typeof stepLog>, main: () => Promise<void>, duration: () => string): Promise<void>;
