import { describe, expect, it } from "vitest";
import { questionAsStatement } from "./question-statement.js";

describe("a question about the asker as the statement that answers it", () => {
  it.each([
    ["Which town am I living in?", "I am living in town"],
    ["What bike do I ride?", "I ride bike"],
    ["Where do we keep the spare keys?", "we keep the spare keys"],
    ["How often do I water the ferns?", "I water the ferns often"],
    ["Am I still renting the flat?", "I am still renting the flat"],
    ["Do we own a tent?", "we own a tent"],
    ["Have I got a passport", "I have got a passport"],
    ["What is my bank called?", "my bank called"],
    ["What's our dog's name?", "our dog's name"],
    ["What is our dog's name?", "our dog's name"],
    ["What's my landlord like?", "my landlord"],
    ["What is my landlord like?", "my landlord"],
    ["Am I like my grandfather?", "I am like my grandfather"],
    ["Is my attic like an oven in July?", "my attic like an oven in July"],
    ["Which music do I like?", "I like music"],
    ["Which club does my nephew train with?", "my nephew train with club"],
    ["Where is our neighbour working now?", "our neighbour working now"],
    ["Does my aunt still keep bees?", "my aunt still keep bees"],
  ])("%j → %j", (question, statement) => {
    expect(questionAsStatement(question)).toBe(statement);
  });

  it.each([["Where is Lisbon?"], ["What did the assistant suggest for dinner?"], ["Tell me about my garden"], ["Which one do you like?"]])(
    "reads no statement from %j, which the asker is not the subject of",
    (question) => {
      expect(questionAsStatement(question)).toBeUndefined();
    },
  );
});
