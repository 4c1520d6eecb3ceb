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
