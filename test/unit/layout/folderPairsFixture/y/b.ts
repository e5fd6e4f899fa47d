export interface B {
  name: string;
}
